/**
 * What the application asks of tracing, without importing OpenTelemetry: `tracing.hooks` stays
 * null unless `src/tracing.ts` was loaded (OTEL_EXPORTER_OTLP_ENDPOINT set), so a deployment
 * without tracing pays one null check where a span would be touched, and loads nothing.
 */
export interface TraceHooks {
  /** The id of the trace the current code runs in (the request log line carries it). */
  traceId(): string | undefined;
  /** The request being handled matched `route`: its server span is named after the template. */
  routed(method: string, route: string): void;
  /** Runs one attempt of a job inside a span of its own (its queries become children). */
  job<T>(queue: string, run: () => Promise<T>): Promise<T>;
  /** Sends the spans still buffered (on shutdown). */
  flush(): Promise<void>;
}

export const tracing: { hooks: TraceHooks | null } = { hooks: null };
