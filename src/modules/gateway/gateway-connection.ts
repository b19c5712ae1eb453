import { constants as zlibConstants, deflateRawSync } from 'node:zlib';
import type WebSocket from 'ws';
import type { GatewaySession } from './gateway-session';
import { CLOSE_REASONS, Op, type GatewayFrame } from './protocol';
import { ZstdStream } from './zstd-stream';

/** How a connection's messages are compressed (`compress=`), or null: JSON text frames. */
export type Compression = 'zlib-stream' | 'zstd-stream' | null;

/** A connection whose unsent data passes this is too slow: closed, resumable. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** After a close frame, the socket is cut if the client has not closed its side by then. */
const CLOSE_TIMEOUT_MS = 5_000;

/** What a connection reports to whoever keeps it (the registry): one object for all of them. */
export interface ConnectionOwner {
  slowConsumer(conn: GatewayConnection): void;
  dispatched(): void;
}

// zlib-stream (ARCHITECTURE.md §7): the client inflates one zlib stream, and every message ends
// with a sync flush (00 00 ff ff). Parley writes that stream as independent pieces rather than
// through a deflate context per connection — Node's zlib holds ~100 KB per context, whatever the
// window (its hash table is fixed), more than an idle connection may cost. After a sync flush the
// stream is at a byte boundary with nothing referred back to, so a raw deflate run made by
// another compressor, or a stored block, continues it validly: the header (78 9c, a 32 KB window)
// starts it, each dispatch is the frame's small head as a stored block plus its payload
// compressed once per event and shared by every recipient.
const ZLIB_HEADER = Buffer.from([0x78, 0x9c]);
const SYNC = { finishFlush: zlibConstants.Z_SYNC_FLUSH, level: 6 } as const;
/** Payloads compressed lately (an event's text, shared by all its recipients): text → deflated. */
const deflated = new Map<string, Buffer>();
const DEFLATED_KEPT = 256;

/** `text` as a raw deflate run ending in a sync flush. */
function deflate(text: string): Buffer {
  return deflateRawSync(text, SYNC);
}

/** A payload's run (the dispatch's `d` and the frame's closing brace), made once per event. */
function deflatedPayload(d: string): Buffer {
  let run = deflated.get(d);
  if (!run) {
    run = deflate(`${d}}`);
    if (deflated.size >= DEFLATED_KEPT) deflated.delete(deflated.keys().next().value!);
    deflated.set(d, run);
  }
  return run;
}

/** `bytes` as a stored (uncompressed) deflate block, not final (RFC 1951 §3.2.4). */
function storedBlock(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + bytes.length);
  out[0] = 0; // BFINAL 0, BTYPE 00, padded to the byte
  out.writeUInt16LE(bytes.length, 1);
  out.writeUInt16LE(~bytes.length & 0xffff, 3);
  bytes.copy(out, 5);
  return out;
}

/**
 * One WebSocket as the gateway speaks to it: JSON text frames, or binary frames of one zlib
 * stream when the client asked for `compress=zlib-stream`; a connection that cannot keep up is
 * closed (4000, resumable) rather than buffered without bound. It also holds the connection's
 * protocol state (heartbeats, the frame budget, its session) — one object per socket.
 */
export class GatewayConnection {
  private closed = false;
  /** Whether the zlib header went out (the first compressed message carries it). */
  private streamStarted = false;
  /** zstd-stream's context, made at the first message. */
  private zstd: ZstdStream | null = null;
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
    private readonly compression: Compression,
    private readonly owner: ConnectionOwner,
    now = Date.now(),
  ) {
    this.lastHeartbeat = this.windowStart = this.openedAt = now;
  }

  get open(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  get compressed(): Compression {
    return this.compression;
  }

  send(frame: GatewayFrame): void {
    this.sendRaw(JSON.stringify(frame));
  }

  sendOp(op: Op, d: unknown): void {
    this.send({ op, d, s: null, t: null });
  }

  /** Sends dispatch `s` (op 0) of event `t` with payload `d` (JSON text), counted as sent. */
  /** A dispatch; `s` null for an ephemeral one (never counted for resume). */
  sendDispatch(s: number | null, t: string, d: string): void {
    if (!this.open) return;
    this.owner.dispatched();
    const head = `{"op":${Op.Dispatch},"s":${s},"t":"${t}","d":`;
    if (this.compression === null) {
      this.ws.send(`${head}${d}}`);
    } else if (this.compression === 'zstd-stream') {
      return this.zstdStream().send(`${head}${d}}`);
    } else {
      const parts = [storedBlock(Buffer.from(head)), deflatedPayload(d)];
      if (!this.streamStarted) parts.unshift(ZLIB_HEADER);
      this.streamStarted = true;
      this.ws.send(Buffer.concat(parts));
    }
    this.checkBacklog();
  }

  /** Sends an already serialized frame. */
  sendRaw(json: string): void {
    if (!this.open) return;
    if (this.compression === null) {
      this.ws.send(json);
    } else if (this.compression === 'zstd-stream') {
      return this.zstdStream().send(json);
    } else {
      const run = deflate(json);
      this.ws.send(this.streamStarted ? run : Buffer.concat([ZLIB_HEADER, run]));
      this.streamStarted = true;
    }
    this.checkBacklog();
  }

  /** Closes with `code` (its Discord reason), cutting the socket if the client does not answer. */
  close(code: number, reason = CLOSE_REASONS[code] ?? ''): void {
    if (this.closed) return;
    this.closed = true;
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
    this.zstd?.close();
    this.zstd = null;
  }

  private zstdStream(): ZstdStream {
    this.zstd ??= new ZstdStream((message) => {
      if (!this.open) return;
      this.ws.send(message);
      this.checkBacklog();
    });
    return this.zstd;
  }

  private checkBacklog(): void {
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) this.owner.slowConsumer(this);
  }
}
