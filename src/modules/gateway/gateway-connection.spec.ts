import { constants, createInflate } from 'node:zlib';
import type WebSocket from 'ws';
import { GatewayConnection, MAX_BUFFERED_BYTES } from './gateway-connection';

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

describe('GatewayConnection', () => {
  it('writes JSON text frames, and nothing once closed', () => {
    const { ws, sent, closes } = fakeSocket();
    const conn = new GatewayConnection(ws as unknown as WebSocket, '127.0.0.1', false, () => {
      throw new Error('not slow');
    });
    conn.sendOp(10, { heartbeat_interval: 41250 });
    expect(sent).toEqual(['{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}']);
    conn.close(4004);
    expect(closes).toEqual([[4004, 'Authentication failed.']]);
    conn.sendRaw('{"op":11}');
    expect(sent).toHaveLength(1);
  });

  it('compresses into one zlib stream: every message ends with 00 00 ff ff and inflates in order', async () => {
    const { ws, sent } = fakeSocket();
    const conn = new GatewayConnection(
      ws as unknown as WebSocket,
      undefined,
      true,
      () => undefined,
    );
    const frames = [1, 2, 3].map(
      (s) => `{"op":0,"s":${s},"t":"MESSAGE_CREATE","d":{"content":"${'hello '.repeat(200)}"}}`,
    );
    for (const f of frames) conn.sendRaw(f);
    await new Promise<void>((resolve) => {
      const check = () => (sent.length === 3 ? resolve() : setTimeout(check, 5));
      check();
    });
    const inflate = createInflate();
    const out: string[] = [];
    for (const chunk of sent as Buffer[]) {
      expect(chunk.subarray(-4).toString('hex')).toBe('0000ffff');
      const text = await new Promise<string>((resolve) => {
        let acc = '';
        const onData = (d: Buffer) => (acc += d.toString());
        inflate.on('data', onData);
        inflate.write(chunk);
        inflate.flush(constants.Z_SYNC_FLUSH, () => {
          inflate.off('data', onData);
          resolve(acc);
        });
      });
      out.push(text);
    }
    expect(out).toEqual(frames);
    // The second frame repeats the first's text: the shared context compresses it far better.
    expect((sent[1] as Buffer).length).toBeLessThan((sent[0] as Buffer).length / 2);
    conn.close(1000);
  });

  it('reports a connection whose unsent data passes the bound (the server closes it, resumable)', () => {
    const { ws } = fakeSocket();
    let slow = 0;
    const conn = new GatewayConnection(
      ws as unknown as WebSocket,
      undefined,
      false,
      () => (slow += 1),
    );
    ws.bufferedAmount = MAX_BUFFERED_BYTES;
    conn.sendRaw('{}');
    expect(slow).toBe(0);
    ws.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    conn.sendRaw('{}');
    expect(slow).toBe(1);
  });
});
