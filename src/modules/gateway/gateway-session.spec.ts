import type { ParsedCredential } from '../../common/auth/authorization-header';
import type { GatewayConnection } from './gateway-connection';
import { GatewaySession } from './gateway-session';
import { MAX_BUFFERED_BYTES_DISCONNECTED } from './resume-buffer';

const identity = {
  userId: '1',
  bot: false,
  applicationId: null,
  credential: { scheme: 'session', credential: 'x' } as ParsedCredential,
  tags: [],
};

function connection(sent: string[]): GatewayConnection {
  return {
    open: true,
    sendDispatch: (s: number, t: string, d: string) =>
      sent.push(`{"op":0,"s":${s},"t":"${t}","d":${d}}`),
  } as unknown as GatewayConnection;
}

/** Kept dispatches as the frames a resume sends. */
const asFrames = (list: ReturnType<GatewaySession['framesAfter']>) =>
  list?.map((f) => `{"op":0,"s":${f.s},"t":"${f.t}","d":${f.d}}`) ?? null;

function started(): GatewaySession {
  const s = new GatewaySession('a'.repeat(32), identity, 0, [0, 1], 50);
  s.startAt(0);
  s.started();
  return s;
}

describe('GatewaySession', () => {
  it('numbers dispatches, keeps them for resume, and lets go of what the client acknowledged', () => {
    const sent: string[] = [];
    const s = started();
    s.attach(connection(sent));
    s.dispatch('READY', '{"big":"' + 'x'.repeat(1000) + '"}');
    s.dispatch('MESSAGE_CREATE', '{"id":"1"}');
    expect(sent).toEqual([
      `{"op":0,"s":1,"t":"READY","d":{"big":"${'x'.repeat(1000)}"}}`,
      '{"op":0,"s":2,"t":"MESSAGE_CREATE","d":{"id":"1"}}',
    ]);
    expect(asFrames(s.framesAfter(0))).toEqual(sent);
    s.acknowledged(1);
    // READY is released once acknowledged: a resume from before it cannot be served.
    expect(s.framesAfter(0)).toBeNull();
    expect(asFrames(s.framesAfter(1))).toEqual([sent[1]]);
    expect(s.buffered).toEqual({ frames: 1, bytes: '{"id":"1"}'.length });
    s.acknowledged(2);
    expect(s.buffered).toEqual({ frames: 0, bytes: 0 });
  });

  it('keeps at most MAX_BUFFERED_BYTES_DISCONNECTED while its client is away', () => {
    const s = started();
    s.attach(connection([]));
    s.detach();
    const payload = `{"content":"${'y'.repeat(10_000)}"}`;
    for (let i = 0; i < 500; i++) s.dispatch('MESSAGE_CREATE', payload);
    expect(s.buffered.bytes).toBeLessThanOrEqual(MAX_BUFFERED_BYTES_DISCONNECTED);
    expect(s.buffered.frames).toBeGreaterThan(0);
    // The oldest went: resuming from the start is refused (op 9), from near the end is served.
    expect(s.framesAfter(0)).toBeNull();
    expect(s.framesAfter(499)).toHaveLength(1);
  });

  it('moves its checkpoint only while a connection is attached, with the guilds when they changed', () => {
    const s = started();
    s.follow('10', true);
    s.dispatch('GUILD_CREATE', '{}');
    s.settle(5);
    expect(s.takeCheckpoint(false)).toBeNull();
    s.attach(connection([]));
    s.settle(6);
    expect(s.takeCheckpoint(false)).toEqual({ seq: 1, pos: 6, guilds: [['10', true]] });
    s.settle(7);
    expect(s.takeCheckpoint(false)).toEqual({ seq: 1, pos: 7, guilds: null });
    expect(s.takeCheckpoint(false)).toBeNull();
  });
});
