// The parts of autocannon 8's programmatic API that bench/ uses (it ships no typings).
declare module 'autocannon' {
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  namespace autocannon {
    interface RequestData {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    }
    interface Request extends RequestData {
      /**
       * Called before each request is built (on the calling thread): returns the request to send.
       * With one request in `requests`, autocannon rebuilds that request every time.
       */
      setupRequest?: (req: RequestData, context: Record<string, unknown>) => RequestData;
    }
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Request[];
      connections?: number;
      pipelining?: number;
      duration?: number;
      /** Stop after this many requests instead of after `duration`. */
      amount?: number;
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
  }
  export = autocannon;
}
