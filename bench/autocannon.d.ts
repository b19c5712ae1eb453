// The parts of autocannon 8's programmatic API that bench/ uses (it ships no typings).
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    /** Run the load generator on this many worker threads instead of the calling thread. */
    workers?: number;
    timeout?: number;
    title?: string;
  }
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface Result {
    title?: string;
    url: string;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export = autocannon;
}
