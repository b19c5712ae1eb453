import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { tracing } from './infra/tracing/trace-hooks';

/**
 * OpenTelemetry traces, loaded by main.ts before anything else, and only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Spans go to that OTLP/HTTP endpoint (`/v1/traces` is
 * appended, as the specification says) under OTEL_SERVICE_NAME (default "parley"); the exporter
 * reads the other standard OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself.
 *
 * Spans: every incoming HTTP request but the health probes (named `METHOD /route/template`, with
 * `http.route` and the status), the PostgreSQL queries and Redis commands made while handling it
 * (children of its span; none outside a trace), and one span per job attempt. W3C trace context
 * is read from incoming requests. The versions are the 0.2xx line, the last that runs on Node 20.
 */
export function startTracing(env: NodeJS.ProcessEnv): void {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'parley',
    }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 1000 }),
    ],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => (req.url ?? '').startsWith('/v1/health/'),
        // Outgoing calls (SMTP is not HTTP; OIDC discovery, webhooks out) only within a trace.
        requireParentforOutgoingSpans: true,
      }),
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  const tracer = provider.getTracer('parley');
  tracing.hooks = {
    traceId: () => trace.getActiveSpan()?.spanContext().traceId,
    routed: (method, route) => {
      const span = trace.getActiveSpan();
      if (!span) return;
      span.setAttribute('http.route', route);
      span.updateName(`${method} ${route}`);
    },
    job: (queue, run) =>
      tracer.startActiveSpan(`job ${queue}`, { root: true }, context.active(), async (span) => {
        span.setAttribute('messaging.destination.name', queue);
        try {
          return await run();
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          throw err;
        } finally {
          span.end();
        }
      }),
    flush: () => provider.forceFlush(),
  };
}
