import * as zlib from 'node:zlib';

/** What Node's zstd compressor offers here (Node ≥ 22.15 has it; Node 20 has none). */
interface ZstdCompressor {
  write(chunk: string): boolean;
  flush(kind: number, callback: () => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  close(): void;
}
type ZstdFactory = (options: {
  params: Record<number, number>;
  chunkSize: number;
}) => ZstdCompressor;

const factory = (zlib as unknown as { createZstdCompress?: ZstdFactory }).createZstdCompress;
const C = zlib.constants as unknown as Record<string, number>;

/** Whether this runtime can serve `compress=zstd-stream` (else such clients get text frames). */
export const ZSTD_AVAILABLE = typeof factory === 'function';

/**
 * The compression context of one connection: a 4 KB window, small hash tables and a 4 KB output
 * chunk keep it at ~40 KB (measured on Node 24; the defaults cost ~800 KB), within what a
 * compressed connection may cost.
 */
const PARAMS = (): Record<number, number> => ({
  [C.ZSTD_c_compressionLevel]: 3,
  [C.ZSTD_c_windowLog]: 12,
  [C.ZSTD_c_hashLog]: 12,
  [C.ZSTD_c_chainLog]: 12,
});

/**
 * `compress=zstd-stream` (Discord's): every message of the connection is the next piece of one
 * zstd stream, ended with a flush so the client decompresses it whole. Unlike zlib-stream
 * (gateway-connection.ts) this needs a context per connection: zstd blocks carry state (repeat
 * offsets, entropy tables) from the blocks before them, so no piece can be shared between
 * connections. Pieces are handed to `deliver` in the order they were sent.
 */
export class ZstdStream {
  private readonly z: ZstdCompressor;
  private pending: Buffer[] = [];

  constructor(private readonly deliver: (message: Buffer) => void) {
    if (!factory) throw new Error('zstd is not available in this runtime');
    this.z = factory({ params: PARAMS(), chunkSize: 4096 });
    this.z.on('data', (chunk) => this.pending.push(chunk));
    this.z.on('error', () => undefined);
  }

  send(text: string): void {
    this.z.write(text);
    // The stream emits a flush's output before its callback runs, and runs callbacks in order.
    this.z.flush(C.ZSTD_e_flush, () => {
      if (this.pending.length === 0) return;
      const message = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      this.pending = [];
      this.deliver(message);
    });
  }

  close(): void {
    this.z.close();
  }
}
