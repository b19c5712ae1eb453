import { constants, createInflate } from 'node:zlib';
import type WebSocket from 'ws';
import { GatewayConnection, MAX_BUFFERED_BYTES, type ConnectionOwner } from './gateway-connection';
import type { GatewaySession } from './gateway-session';

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

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

describe('GatewayConnection', () => {
  it('writes JSON text frames, and nothing once closed', () => {
    const { ws, sent, closes } = fakeSocket();
    const conn = new GatewayConnection(ws as unknown as WebSocket, '127.0.0.1', false, owner());
    conn.sendOp(10, { heartbeat_interval: 41250 });
    expect(sent).toEqual(['{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}']);
    conn.close(4004);
    expect(closes).toEqual([[4004, 'Authentication failed.']]);
    conn.sendRaw('{"op":11}');
    expect(sent).toHaveLength(1);
  });

  it('compresses into one zlib stream: precompressed frames before identify, one deflate context after', async () => {
    const { ws, sent } = fakeSocket();
    const conn = new GatewayConnection(ws as unknown as WebSocket, '127.0.0.1', true, owner());
    const hello = '{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}';
    const ack = '{"op":11,"d":null,"s":null,"t":null}';
    conn.sendRaw(hello);
    conn.sendRaw(ack);
    // Before identify nothing allocates a deflate context: the frames are sent at once.
    expect(sent).toHaveLength(2);
    expect((conn as unknown as { deflate: unknown }).deflate).toBeNull();
    conn.session = {} as GatewaySession;
    const frames = [1, 2, 3].map(
      (s) => `{"op":0,"s":${s},"t":"MESSAGE_CREATE","d":{"content":"${'hello '.repeat(200)}"}}`,
    );
    for (const f of frames) conn.sendRaw(f);
    await until(() => sent.length === 5);
    // Once the context exists everything goes through it, even without a session.
    conn.session = null;
    conn.sendRaw(ack);
    await until(() => sent.length === 6);
    expect(await inflateAll(sent as Buffer[])).toEqual([hello, ack, ...frames, ack]);
    // The second frame repeats the first's text: the shared context compresses it far better.
    expect((sent[3] as Buffer).length).toBeLessThan((sent[2] as Buffer).length / 2);
    conn.close(1000);
  });

  it('reports a connection whose unsent data passes the bound (the server closes it, resumable)', () => {
    const { ws } = fakeSocket();
    let slow = 0;
    const conn = new GatewayConnection(
      ws as unknown as WebSocket,
      '127.0.0.1',
      false,
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
