import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type Metric,
} from 'prom-client';
import { Metrics, type ResumeOutcome } from './metrics';

/** Request latency buckets, in seconds: 1 ms to 10 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** One route template and method: its latency histogram, counted here and exported at scrape. */
interface LatencySeries {
  route: string;
  method: string;
  /** Observations per bucket (not cumulative), LATENCY_BUCKETS order. */
  buckets: number[];
  sum: number;
  count: number;
}

/** One route, method and status: its request count, and the latency series it adds to. */
interface RequestSeries {
  route: string;
  method: string;
  status: string;
  count: number;
  latency: LatencySeries;
}

/**
 * Prometheus metrics (prom-client) on a listener of their own — METRICS_HOST (loopback by
 * default) : METRICS_PORT, never the API's port — in the text exposition format at `/metrics`.
 * Label sets are bounded: route templates (not URLs), methods, statuses, bucket and queue names,
 * close codes. What every request or frame touches is counted in plain fields and handed to
 * prom-client when scraped (a prom-client increment hashes its labels each time: about 5 % of a
 * light route's CPU, bench/RESULTS.md 2026-11-26); a request costs one Map lookup and a few
 * additions.
 */
export class PrometheusMetrics
  extends Metrics
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  override readonly enabled = true;
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;
  private readonly readers: Array<() => Promise<void> | void> = [];
  private readonly requestSeries = new Map<string, RequestSeries>();
  private readonly latencySeries = new Map<string, LatencySeries>();
  private cacheHits = 0;
  private cacheMisses = 0;
  private dispatches = 0;

  private readonly batches: Histogram<'writer'>;
  private readonly rateLimits: Counter<'bucket'>;
  private readonly jobFailures: Counter<'queue'>;
  private readonly uploads: Counter;
  private readonly deletedFiles: Counter;
  private readonly deletedBytes: Counter;
  private readonly storedFiles: Gauge;
  private readonly storedBytes: Gauge;
  private readonly queueDepth: Gauge<'queue'>;
  private readonly pool: Gauge<'state'>;
  private readonly wsConnections: Gauge;
  private readonly wsResumes: Counter<'outcome'>;
  private readonly wsCloses: Counter<'code'>;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {
    super();
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const series = this.requestSeries;
    new Counter({
      name: 'parley_http_requests_total',
      help: 'HTTP responses sent, by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
      collect() {
        this.reset();
        for (const r of series.values()) {
          this.inc({ route: r.route, method: r.method, status: r.status }, r.count);
        }
      },
    });
    this.registry.registerMetric(latencyHistogram(this.latencySeries) as unknown as Metric);
    this.batches = new Histogram({
      name: 'parley_group_commit_batch_size',
      help: 'Items written by one group-commit statement',
      labelNames: ['writer'],
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.rateLimits = new Counter({
      name: 'parley_rate_limit_rejections_total',
      help: 'Requests refused with 429, by bucket',
      labelNames: ['bucket'],
      registers,
    });
    const counts = () => ({ hits: this.cacheHits, misses: this.cacheMisses });
    new Counter({
      name: 'parley_credential_cache_requests_total',
      help: 'Credential lookups, answered from the cache (hit) or the database (miss)',
      labelNames: ['result'],
      registers,
      collect() {
        const { hits, misses } = counts();
        this.reset();
        this.inc({ result: 'hit' }, hits);
        this.inc({ result: 'miss' }, misses);
      },
    });
    this.uploads = new Counter({
      name: 'parley_attachment_uploads_total',
      help: 'Attachments whose bytes were stored (multipart files and upload URLs)',
      registers,
    });
    this.deletedFiles = new Counter({
      name: 'parley_attachments_deleted_total',
      help: 'Attachments whose files the sweep deleted (their message went, or an upload expired)',
      registers,
    });
    this.deletedBytes = new Counter({
      name: 'parley_attachment_deleted_bytes_total',
      help: 'Bytes of attachment files the sweep deleted',
      registers,
    });
    this.storedFiles = new Gauge({
      name: 'parley_attachments_stored',
      help: 'Attachments whose files are in blob storage, all instances (read at scrape time)',
      registers,
    });
    this.storedBytes = new Gauge({
      name: 'parley_attachment_bytes_stored',
      help: 'Bytes of attachment files in blob storage, all instances (read at scrape time)',
      registers,
    });
    this.jobFailures = new Counter({
      name: 'parley_job_failures_total',
      help: 'Failed job attempts (retried while attempts remain), by queue',
      labelNames: ['queue'],
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'parley_job_queue_depth',
      help: 'Jobs waiting in a queue (read at scrape time)',
      labelNames: ['queue'],
      registers,
    });
    this.pool = new Gauge({
      name: 'parley_db_pool_connections',
      help: 'PostgreSQL pool: connections open (total), idle, and requests waiting for one',
      labelNames: ['state'],
      registers,
    });
    this.wsConnections = new Gauge({
      name: 'parley_gateway_connections',
      help: 'Open gateway WebSocket connections',
      registers,
    });
    const dispatched = () => this.dispatches;
    new Counter({
      name: 'parley_gateway_dispatches_total',
      help: 'Gateway dispatch events written to connections',
      registers,
      collect() {
        this.reset();
        this.inc(dispatched());
      },
    });
    this.wsResumes = new Counter({
      name: 'parley_gateway_resumes_total',
      help: 'Gateway resumes: on this instance, taken over from another, or refused (invalid)',
      labelNames: ['outcome'],
      registers,
    });
    this.wsCloses = new Counter({
      name: 'parley_gateway_closes_total',
      help: 'Gateway connections closed, by close code',
      labelNames: ['code'],
      registers,
    });
  }

  override httpRequest(route: string, method: string, status: number, seconds: number): void {
    const key = `${status} ${method} ${route}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      const latencyKey = `${method} ${route}`;
      let latency = this.latencySeries.get(latencyKey);
      if (!latency) {
        latency = { route, method, buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
        this.latencySeries.set(latencyKey, latency);
      }
      series = { route, method, status: String(status), count: 0, latency };
      this.requestSeries.set(key, series);
    }
    series.count += 1;
    const latency = series.latency;
    latency.count += 1;
    latency.sum += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i += 1;
    if (i < LATENCY_BUCKETS.length) latency.buckets[i] += 1;
  }

  override groupCommitBatch(writer: string, size: number): void {
    this.batches.labels(writer).observe(size);
  }

  override rateLimited(bucket: string): void {
    this.rateLimits.labels(bucket).inc();
  }

  override credentialCache(hit: boolean): void {
    if (hit) this.cacheHits += 1;
    else this.cacheMisses += 1;
  }

  override attachmentStored(_bytes: number): void {
    this.uploads.inc();
  }

  override attachmentsDeleted(count: number, bytes: number): void {
    this.deletedFiles.inc(count);
    this.deletedBytes.inc(bytes);
  }

  override storedAttachments(count: number, bytes: number): void {
    this.storedFiles.set(count);
    this.storedBytes.set(bytes);
  }

  override jobFailed(queue: string): void {
    this.jobFailures.labels(queue).inc();
  }

  override gatewayConnections(delta: 1 | -1): void {
    this.wsConnections.inc(delta);
  }

  override gatewayDispatches(count: number): void {
    this.dispatches += count;
  }

  override gatewayResume(outcome: ResumeOutcome): void {
    this.wsResumes.labels(outcome).inc();
  }

  override gatewayClose(code: number): void {
    this.wsCloses.labels(String(code)).inc();
  }

  override databasePool(total: number, idle: number, waiting: number): void {
    this.pool.labels('total').set(total);
    this.pool.labels('idle').set(idle);
    this.pool.labels('waiting').set(waiting);
  }

  override jobQueueDepth(queue: string, depth: number): void {
    this.queueDepth.labels(queue).set(depth);
  }

  override onScrape(read: () => Promise<void> | void): void {
    this.readers.push(read);
  }

  /** The listener's address once listening (METRICS_PORT=0 picks a free port). */
  address(): AddressInfo | null {
    return (this.server?.address() as AddressInfo | null) ?? null;
  }

  /** The exposition text, after the scrape-time readers ran (one failing leaves its gauges as they were). */
  async scrape(): Promise<string> {
    await Promise.all(
      this.readers.map(async (read) => {
        try {
          await read();
        } catch (err) {
          this.logger.warn(`a metrics reader failed: ${(err as Error).message}`);
        }
      }),
    );
    return this.registry.metrics();
  }

  async onApplicationBootstrap(): Promise<void> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
        return;
      }
      this.scrape().then(
        (text) => res.writeHead(200, { 'Content-Type': this.registry.contentType }).end(text),
        (err: Error) =>
          res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${err.message}\n`),
      );
    });
    // A scrape holds no connection open for long; never keep the process alive for one.
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.unref();
    this.server = server;
    const { address, port } = server.address() as AddressInfo;
    this.logger.log(
      `Prometheus metrics on http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * `parley_http_request_duration_seconds` as prom-client formats a histogram, from the series
 * counted in PrometheusMetrics.httpRequest (cumulative buckets, `+Inf`, sum and count).
 */
function latencyHistogram(series: Map<string, LatencySeries>) {
  const name = 'parley_http_request_duration_seconds';
  const help = 'Time from request to response sent, by route template and method';
  const get = () => {
    const values: Array<{
      labels: Record<string, string | number>;
      value: number;
      metricName: string;
    }> = [];
    for (const s of series.values()) {
      const labels = { route: s.route, method: s.method };
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i];
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({
        labels: { le: '+Inf', ...labels },
        value: s.count,
        metricName: `${name}_bucket`,
      });
      values.push({ labels, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels, value: s.count, metricName: `${name}_count` });
    }
    return Promise.resolve({ name, help, type: 'histogram', aggregator: 'sum', values });
  };
  return { name, help, type: 'histogram', aggregator: 'sum', get, reset: () => series.clear() };
}
