/** How a gateway resume ended. */
export type ResumeOutcome = 'resumed' | 'taken_over' | 'invalid';

/**
 * What Parley counts, as the code that does the work reports it. This class is the switched-off
 * form: every method does nothing, so a deployment without METRICS_PORT pays one empty call per
 * event and loads nothing of prom-client. With METRICS_PORT, PrometheusMetrics
 * (prometheus-metrics.ts) records them and serves `/metrics` on its own listener.
 */
export class Metrics {
  readonly enabled: boolean = false;

  /** A response was sent: its route template ("unmatched" when none), method, status, duration. */
  httpRequest(_route: string, _method: string, _status: number, _seconds: number): void {}

  /** One statement of a group commit wrote this many items. */
  groupCommitBatch(_writer: string, _size: number): void {}

  /** A request was refused by a rate-limit bucket. */
  rateLimited(_bucket: string): void {}

  /** A credential was resolved from the cache (hit) or the database (miss). */
  credentialCache(_hit: boolean): void {}

  /** An attachment's bytes were stored (an upload completed). */
  attachmentStored(_bytes: number): void {}

  /** Attachments' blobs were deleted (the sweep), freeing this many bytes. */
  attachmentsDeleted(_count: number, _bytes: number): void {}

  /** Attachments stored (all instances: read from the database at scrape time) and their bytes. */
  storedAttachments(_count: number, _bytes: number): void {}

  /** A job attempt failed (it may be retried). */
  jobFailed(_queue: string): void {}

  /** Gateway: a connection opened (+1) or closed (-1). */
  gatewayConnections(_delta: 1 | -1): void {}

  /** Gateway: dispatches written to connections. */
  gatewayDispatches(_count: number): void {}

  gatewayResume(_outcome: ResumeOutcome): void {}

  /** Gateway: a connection closed, with the close code it ended with. */
  gatewayClose(_code: number): void {}

  /** PostgreSQL pool sizes, read at scrape time. */
  databasePool(_total: number, _idle: number, _waiting: number): void {}

  /** A job queue's waiting jobs, read at scrape time. */
  jobQueueDepth(_queue: string, _depth: number): void {}

  /** Registers a reader run before each scrape (pool sizes, queue depths). */
  onScrape(_read: () => Promise<void> | void): void {}
}
