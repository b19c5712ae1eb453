import { constants, createInflate } from 'node:zlib';
import type WebSocket from 'ws';
import * as zlib from 'node:zlib';
import { GatewayConnection, MAX_BUFFERED_BYTES, type ConnectionOwner } from './gateway-connection';
import { ZSTD_AVAILABLE, ZstdStream } from './zstd-stream';

/** A stand-in for a server-side `ws` socket: records what is sent; the backlog is settable. */
function fakeSocket() {
  const sent: Array<string | Buffer> = [];
  const closes: Array<[number, string]> = [];
  const ws = {
    OPEN: 1,
    CONNECTING: 0,
    readyState: 1,
    bufferedAmount: 0,
    send: (data: string | Buffer) => void sent.push(data),
    close: (code: number, reason: string) => {
      closes.push([code, reason]);
      ws.readyState = 2;
    },
    terminate: () => undefined,
  };
  return { ws, sent, closes };
}

function owner(onSlow: () => void = () => undefined): ConnectionOwner {
  return { slowConsumer: onSlow, dispatched: () => undefined };
}

/** Inflates every chunk in order through one stream (as a client does); the text of each. */
async function inflateAll(chunks: Buffer[]): Promise<string[]> {
  const inflate = createInflate();
  const out: string[] = [];
  for (const chunk of chunks) {
    expect(chunk.subarray(-4).toString('hex')).toBe('0000ffff');
    out.push(
      await new Promise<string>((resolve, reject) => {
        let acc = '';
        const onData = (d: Buffer) => (acc += d.toString());
        inflate.on('data', onData);
        inflate.once('error', reject);
        inflate.write(chunk);
        inflate.flush(constants.Z_SYNC_FLUSH, () => {
          inflate.off('data', onData);
          resolve(acc);
        });
      }),
    );
  }
  return out;
}

/** Decompresses every message in order through one zstd stream (as a client does). */
async function unzstdAll(chunks: Buffer[]): Promise<string[]> {
  type Stream = NodeJS.ReadWriteStream & { flush(cb: () => void): void };
  const make = (zlib as unknown as { createZstdDecompress: () => Stream }).createZstdDecompress;
  const z = make();
  const out: string[] = [];
  for (const chunk of chunks) {
    out.push(
      await new Promise<string>((resolve) => {
        let acc = '';
        const onData = (d: Buffer) => (acc += d.toString());
        z.on('data', onData);
        z.write(chunk);
        z.flush(() => {
          z.removeListener('data', onData);
          resolve(acc);
        });
      }),
    );
  }
  return out;
}

describe('GatewayConnection', () => {
  it('writes zstd-stream where the runtime has zstd: each message the next piece of one stream', async () => {
    if (!ZSTD_AVAILABLE) {
      // Node 20: no zstd; such clients are given text frames at the upgrade (gateway-upgrade.ts).
      expect(() => new ZstdStream(() => undefined)).toThrow(/not available/);
      return;
    }
    const { ws, sent } = fakeSocket();
    const conn = new GatewayConnection(
      ws as unknown as WebSocket,
      '127.0.0.1',
      'zstd-stream',
      owner(),
    );
    const hello = '{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}';
    conn.sendRaw(hello);
    for (let s = 1; s <= 3; s++) conn.sendDispatch(s, 'MESSAGE_CREATE', `{"id":"${s}"}`);
    await new Promise<void>((resolve) => {
      const poll = () => (sent.length === 4 ? resolve() : setTimeout(poll, 5));
      poll();
    });
    expect(sent.every((m) => Buffer.isBuffer(m))).toBe(true);
    const texts = await unzstdAll(sent as Buffer[]);
    expect(texts).toEqual([
      hello,
      ...[1, 2, 3].map((s) => `{"op":0,"s":${s},"t":"MESSAGE_CREATE","d":{"id":"${s}"}}`),
    ]);
    conn.closedByPeer();
  });

  it('writes JSON text frames, and nothing once closed', () => {
    const { ws, sent, closes } = fakeSocket();
    const conn = new GatewayConnection(ws as unknown as WebSocket, '127.0.0.1', null, owner());
    conn.sendOp(10, { heartbeat_interval: 41250 });
    conn.sendDispatch(7, 'MESSAGE_CREATE', '{"id":"1"}');
    expect(sent).toEqual([
      '{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}',
      '{"op":0,"s":7,"t":"MESSAGE_CREATE","d":{"id":"1"}}',
    ]);
    expect(JSON.parse(sent[1] as string)).toEqual({
      op: 0,
      s: 7,
      t: 'MESSAGE_CREATE',
      d: { id: '1' },
    });
    conn.close(4004);
    expect(closes).toEqual([[4004, 'Authentication failed.']]);
    conn.sendRaw('{"op":11}');
    expect(sent).toHaveLength(2);
  });

  it('writes one zlib stream without a deflate context: every message ends 00 00 ff ff and inflates in order', async () => {
    const { ws, sent } = fakeSocket();
    const conn = new GatewayConnection(
      ws as unknown as WebSocket,
      '127.0.0.1',
      'zlib-stream',
      owner(),
    );
    const hello = '{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}';
    const ack = '{"op":11,"d":null,"s":null,"t":null}';
    const payload = `{"content":"${'hello '.repeat(200)}"}`;
    conn.sendRaw(hello);
    conn.sendRaw(ack);
    for (const s of [1, 2, 3]) conn.sendDispatch(s, 'MESSAGE_CREATE', payload);
    // Nothing is asynchronous: each message is on the socket at once.
    expect(sent).toHaveLength(5);
    expect((sent[0] as Buffer).subarray(0, 2).toString('hex')).toBe('789c');
    const frames = [1, 2, 3].map((s) => `{"op":0,"s":${s},"t":"MESSAGE_CREATE","d":${payload}}`);
    expect(await inflateAll(sent as Buffer[])).toEqual([hello, ack, ...frames]);
    // The payload is compressed once per event and shared: each dispatch is its head plus it.
    expect((sent[3] as Buffer).length).toBe((sent[4] as Buffer).length);
    expect((sent[2] as Buffer).length).toBeLessThan(Buffer.byteLength(frames[0]) / 4);
    conn.close(1000);
  });

  it('reports a connection whose unsent data passes the bound (the server closes it, resumable)', () => {
    const { ws } = fakeSocket();
    let slow = 0;
    const conn = new GatewayConnection(
      ws as unknown as WebSocket,
      '127.0.0.1',
      null,
      owner(() => (slow += 1)),
    );
    ws.bufferedAmount = MAX_BUFFERED_BYTES;
    conn.sendRaw('{}');
    expect(slow).toBe(0);
    ws.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    conn.sendRaw('{}');
    expect(slow).toBe(1);
  });
});
