import * as zlibModule from 'node:zlib';
import { constants, createInflate, type Inflate } from 'node:zlib';
import WebSocket from 'ws';

export interface Frame {
  op: number;
  d: any;
  s: number | null;
  t: string | null;
}

export interface GatewayClientOptions {
  query?: string;
  /** Inflate a zlib-stream (compress=zlib-stream must be in the query). */
  zlib?: boolean;
  /** Decompress a zstd-stream (compress=zstd-stream in the query; runtimes with zstd only). */
  zstd?: boolean;
  /** Heartbeat at the interval Hello gives, as clients do (default true). */
  heartbeat?: boolean;
  /** Headers of the upgrade request (X-Forwarded-For behind a trusted proxy). */
  headers?: Record<string, string>;
}

/**
 * A raw WebSocket client of the gateway for tests: collects every frame (inflating a zlib
 * stream when asked), waits for frames or the close, sends JSON.
 */
export class GatewayClient {
  readonly frames: Frame[] = [];
  /** Raw binary messages as received (zlib-stream tests check the flush suffix). */
  readonly binary: Buffer[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly inflate: Inflate | null;
  /** How the decompressor is told a message ended (zlib: a sync flush; zstd: its flush). */
  private readonly flushMessage: (cb: () => void) => void;
  private waiters: Array<() => void> = [];
  private pending = '';

  private heartbeats: NodeJS.Timeout | null = null;

  private constructor(
    readonly ws: WebSocket,
    compression: 'zlib' | 'zstd' | null,
    private readonly heartbeat: boolean,
  ) {
    const zstd = (zlibModule as unknown as { createZstdDecompress?: () => Inflate })
      .createZstdDecompress;
    this.inflate =
      compression === 'zlib' ? createInflate() : compression === 'zstd' ? zstd!() : null;
    this.flushMessage =
      compression === 'zlib'
        ? (cb) => this.inflate!.flush(constants.Z_SYNC_FLUSH, cb)
        : (cb) => this.inflate!.flush(cb);
    this.inflate?.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString('utf8');
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary && this.inflate) {
        this.binary.push(data);
        this.inflate.write(data);
        this.flushMessage(() => {
          const text = this.pending;
          this.pending = '';
          if (text) this.push(JSON.parse(text) as Frame);
        });
      } else {
        this.push(JSON.parse(data.toString('utf8')) as Frame);
      }
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        if (this.heartbeats) clearInterval(this.heartbeats);
        resolve({ code, reason: reason.toString() });
        this.wake();
      });
    });
    ws.on('error', () => undefined);
  }

  static connect(url: string, options: GatewayClientOptions = {}): Promise<GatewayClient> {
    const query = options.query ?? 'v=10&encoding=json';
    const ws = new WebSocket(`${url}${query ? `?${query}` : ''}`, {
      perMessageDeflate: false,
      headers: options.headers,
    });
    const compression = options.zlib ? 'zlib' : options.zstd ? 'zstd' : null;
    const client = new GatewayClient(ws, compression, options.heartbeat ?? true);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused: ${res.statusCode}`)),
      );
      ws.once('error', reject);
    });
  }

  /** A session of `token`'s user on the gateway at `url`, identified and past READY. */
  static async ready(url: string, token: string): Promise<GatewayClient> {
    const client = await GatewayClient.connect(url);
    client.identify(token);
    await client.dispatch('READY');
    return client;
  }

  /**
   * The sequence number to resume from, as clients keep it: the highest `s` received (ephemeral
   * dispatches — typing, presences, member chunks — carry none).
   */
  get lastSeq(): number | null {
    let seq: number | null = null;
    for (const f of this.frames) if (f.s !== null && (seq === null || f.s > seq)) seq = f.s;
    return seq;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  identify(token: string, extra: Record<string, unknown> = {}): void {
    this.send({
      op: 2,
      d: { token, properties: { os: 'linux', browser: 'test', device: 'test' }, ...extra },
    });
  }

  /**
   * The first frame (from `from` on) matching `match`; rejects after `timeoutMs` or on close. 15 s
   * by default: on a loaded 2-core CI machine the relay (one leader among every app of every Jest
   * worker, on the shared test database) has been seen to lag events by several seconds.
   */
  async next(match: (f: Frame) => boolean, timeoutMs = 15_000, from = 0): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (this.ws.readyState === WebSocket.CLOSED) {
        throw new Error(`closed before a matching frame; got ${this.describe()}`);
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching frame within ${timeoutMs} ms; got ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  dispatch(t: string, timeoutMs?: number): Promise<Frame> {
    return this.next((f) => f.op === 0 && f.t === t, timeoutMs);
  }

  /** Dispatches received so far, optionally of one type. */
  dispatches(t?: string): Frame[] {
    return this.frames.filter((f) => f.op === 0 && (t === undefined || f.t === t));
  }

  /** Resolves with the close, or rejects if the connection is still open after `timeoutMs`. */
  async closedWithin(timeoutMs = 5_000): Promise<{ code: number; reason: string }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still open after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.closed, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(code = 1000): void {
    this.ws.close(code);
  }

  private push(frame: Frame): void {
    if (frame.op === 10 && this.heartbeat && !this.heartbeats) {
      const interval = (frame.d as { heartbeat_interval: number }).heartbeat_interval;
      this.heartbeats = setInterval(() => {
        const last = this.frames.filter((f) => f.s !== null).at(-1)?.s ?? null;
        if (this.ws.readyState === WebSocket.OPEN) this.send({ op: 1, d: last });
      }, interval * 0.75);
    }
    this.frames.push(frame);
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private describe(): string {
    return JSON.stringify(this.frames.map((f) => (f.op === 0 ? f.t : `op${f.op}`)));
  }
}
