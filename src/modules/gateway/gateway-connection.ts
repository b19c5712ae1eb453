import { constants as zlibConstants, createDeflate, type Deflate } from 'node:zlib';
import type WebSocket from 'ws';
import { CLOSE_REASONS, Op, type GatewayFrame } from './protocol';

// zlib-stream: one deflate context per connection. At zlib's defaults (windowBits 15, memLevel 8)
// a context costs ~256 KB; 2^(12+2) + 2^(5+9) = 32 KB here, at a small cost in ratio on large
// frames. Clients inflate with any window size up to 15 (the header names the window). The
// output chunk is 2 KB instead of Node's 16 KB, which every stream keeps allocated (a larger
// frame simply comes out in several chunks).
const DEFLATE_OPTIONS = { windowBits: 12, memLevel: 5, level: 6, chunkSize: 2 * 1024 } as const;

/** A connection whose unsent data passes this is too slow: closed, resumable. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** After a close frame, the socket is cut if the client has not closed its side by then. */
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * One WebSocket as the gateway writes to it: JSON text frames, or one zlib stream of binary
 * frames each ending with Z_SYNC_FLUSH (00 00 ff ff) when the client asked for
 * `compress=zlib-stream`. Frames are written in order; a connection that cannot keep up is
 * closed (4000, resumable) rather than buffered without bound.
 */
export class GatewayConnection {
  private deflate: Deflate | null = null;
  private pending: Buffer[] = [];
  private closed = false;

  constructor(
    readonly ws: WebSocket,
    readonly ip: string | undefined,
    compress: boolean,
    private readonly onSlow: () => void,
    private readonly onDispatch: () => void = () => undefined,
  ) {
    if (compress) {
      this.deflate = createDeflate(DEFLATE_OPTIONS);
      this.deflate.on('data', (chunk: Buffer) => this.pending.push(chunk));
      this.deflate.on('error', () => this.close(4000));
    }
  }

  get open(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  send(frame: GatewayFrame): void {
    this.sendRaw(JSON.stringify(frame));
  }

  /** Sends a serialized dispatch (op 0), counted as an event sent. */
  sendDispatch(json: string): void {
    if (!this.open) return;
    this.onDispatch();
    this.sendRaw(json);
  }

  /** Sends an already serialized frame. */
  sendRaw(json: string): void {
    if (!this.open) return;
    if (!this.deflate) {
      this.ws.send(json);
      this.checkBacklog();
      return;
    }
    const deflate = this.deflate;
    deflate.write(json);
    deflate.flush(zlibConstants.Z_SYNC_FLUSH, () => {
      if (!this.open || this.pending.length === 0) return;
      const out = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      this.pending = [];
      this.ws.send(out);
      this.checkBacklog();
    });
  }

  sendOp(op: Op, d: unknown): void {
    this.send({ op, d, s: null, t: null });
  }

  /** Closes with `code` (its Discord reason), cutting the socket if the client does not answer. */
  close(code: number, reason = CLOSE_REASONS[code] ?? ''): void {
    if (this.closed) return;
    this.closed = true;
    this.deflate?.close();
    this.deflate = null;
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
    this.deflate?.close();
    this.deflate = null;
  }

  private checkBacklog(): void {
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.onSlow();
    }
  }
}
