import {
  constants as zlibConstants,
  createDeflateRaw,
  deflateRawSync,
  deflateSync,
  type DeflateRaw,
} from 'node:zlib';
import type WebSocket from 'ws';
import type { GatewaySession } from './gateway-session';
import { CLOSE_REASONS, Op, type GatewayFrame } from './protocol';

// zlib-stream: one deflate stream per connection. At zlib's defaults (windowBits 15, memLevel 8)
// a context costs ~256 KB; 2^(12+2) + 2^(5+9) = 32 KB here, at a small cost in ratio on large
// frames. The output chunk is 2 KB instead of Node's 16 KB, which every stream keeps allocated.
const DEFLATE_OPTIONS = { windowBits: 12, memLevel: 5, level: 6, chunkSize: 2 * 1024 } as const;
const SYNC = { ...DEFLATE_OPTIONS, finishFlush: zlibConstants.Z_SYNC_FLUSH };

/** A connection whose unsent data passes this is too slow: closed, resumable. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** After a close frame, the socket is cut if the client has not closed its side by then. */
const CLOSE_TIMEOUT_MS = 5_000;

/** What a connection reports to whoever keeps it (the registry): one object for all of them. */
export interface ConnectionOwner {
  slowConsumer(conn: GatewayConnection): void;
  dispatched(): void;
}

/**
 * The frames a connection sends before it identifies (Hello, heartbeat acks, op 9), compressed
 * once per process: a zlib-stream connection gets its deflate context only once it identified
 * (ARCHITECTURE.md §7) — ~35 KB an unidentified client never costs. The first frame carries the
 * zlib header; each is a complete raw deflate run ending in a sync flush, so the client's one
 * inflate stream reads them, and the context created later, as one stream.
 */
const preamble = new Map<string, Buffer>();
function compressedPreamble(json: string, first: boolean): Buffer {
  const key = `${first ? 'h' : 'r'}${json}`;
  let buf = preamble.get(key);
  if (!buf) {
    buf = first ? deflateSync(json, SYNC) : deflateRawSync(json, SYNC);
    preamble.set(key, buf);
  }
  return buf;
}

/**
 * One WebSocket as the gateway speaks to it: JSON text frames, or one zlib stream of binary
 * frames each ending with Z_SYNC_FLUSH (00 00 ff ff) when the client asked for
 * `compress=zlib-stream`; frames are written in order, and a connection that cannot keep up is
 * closed (4000, resumable) rather than buffered without bound. It also holds the connection's
 * protocol state (heartbeats, the frame budget, its session) — one object per socket.
 */
export class GatewayConnection {
  private deflate: DeflateRaw | null = null;
  private pending: Buffer[] | null = null;
  private closed = false;
  /** Whether anything was sent yet on a compressed stream (the first frame carries the header). */
  private streamStarted = false;
  session: GatewaySession | null = null;
  /** Identify or resume in progress. */
  authenticating = false;
  lastHeartbeat: number;
  windowStart: number;
  framesInWindow = 0;
  readonly openedAt: number;

  constructor(
    readonly ws: WebSocket,
    readonly ip: string,
    private readonly compress: boolean,
    private readonly owner: ConnectionOwner,
    now = Date.now(),
  ) {
    this.lastHeartbeat = this.windowStart = this.openedAt = now;
  }

  get open(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  get compressed(): boolean {
    return this.compress;
  }

  send(frame: GatewayFrame): void {
    this.sendRaw(JSON.stringify(frame));
  }

  sendOp(op: Op, d: unknown): void {
    this.send({ op, d, s: null, t: null });
  }

  /** Sends a serialized dispatch (op 0), counted as an event sent. */
  sendDispatch(json: string): void {
    if (!this.open) return;
    this.owner.dispatched();
    this.sendRaw(json);
  }

  /** Sends an already serialized frame. */
  sendRaw(json: string): void {
    if (!this.open) return;
    if (!this.compress) {
      this.ws.send(json);
      this.checkBacklog();
      return;
    }
    if (!this.deflate && !this.session) {
      // Not identified (and never was): a precompressed frame, no deflate context. Once the
      // context exists everything goes through it (its output refers back to what it sent).
      this.ws.send(compressedPreamble(json, !this.streamStarted));
      this.streamStarted = true;
      return;
    }
    const deflate = this.deflateStream();
    deflate.write(json);
    deflate.flush(zlibConstants.Z_SYNC_FLUSH, () => {
      const pending = this.pending;
      if (!this.open || !pending || pending.length === 0) return;
      const out = pending.length === 1 ? pending[0] : Buffer.concat(pending);
      pending.length = 0;
      this.ws.send(out);
      this.checkBacklog();
    });
  }

  /** Closes with `code` (its Discord reason), cutting the socket if the client does not answer. */
  close(code: number, reason = CLOSE_REASONS[code] ?? ''): void {
    if (this.closed) return;
    this.closed = true;
    this.endDeflate();
    const ws = this.ws;
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) {
      try {
        ws.close(code, reason);
      } catch {
        ws.terminate();
      }
      setTimeout(() => ws.terminate(), CLOSE_TIMEOUT_MS).unref();
    }
  }

  /** Marks it closed once the socket is gone (the client closed, or it was cut). */
  closedByPeer(): void {
    this.closed = true;
    this.endDeflate();
  }

  private deflateStream(): DeflateRaw {
    if (this.deflate) return this.deflate;
    const deflate = createDeflateRaw(DEFLATE_OPTIONS);
    this.pending = [];
    deflate.on('data', (chunk: Buffer) => this.pending?.push(chunk));
    deflate.on('error', () => this.close(4000));
    if (!this.streamStarted) {
      // Identified before anything was sent (never: Hello goes first), yet keep the stream valid.
      this.ws.send(compressedPreamble('', true));
      this.streamStarted = true;
    }
    this.deflate = deflate;
    return deflate;
  }

  private endDeflate(): void {
    this.deflate?.close();
    this.deflate = null;
    this.pending = null;
  }

  private checkBacklog(): void {
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) this.owner.slowConsumer(this);
  }
}
