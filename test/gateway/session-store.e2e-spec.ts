import Redis from 'ioredis';
import { MemorySessionStore } from '../../src/modules/gateway/memory-session-store';
import { RedisSessionStore } from '../../src/modules/gateway/redis-session-store';
import type { SessionStore, StoredSession } from '../../src/modules/gateway/session-store';

const record = (id: string, userId = '7'): StoredSession => ({
  id,
  userId,
  bot: false,
  applicationId: null,
  intents: 513,
  shard: [0, 1],
  largeThreshold: 50,
  seq: 2,
  pos: 100,
  guilds: [['11', true]],
});

let n = 0;
const newId = () =>
  `${process.pid.toString(16).padStart(8, '0')}${Date.now().toString(16)}${(n++).toString(16)}`
    .padEnd(32, '0')
    .slice(0, 32);

/**
 * Both session stores keep the same contract (session-store.ts): the owner writes checkpoints;
 * another instance claims a session only for its own user; a claimed session's old owner learns
 * it lost it; a record that is gone is reported so its owner can write it again.
 */
interface Subject {
  store: SessionStore;
  close(): void;
}

const stores: Array<[string, () => Subject]> = [
  ['memory', () => ({ store: new MemorySessionStore(), close: () => undefined })],
  [
    'Redis',
    () => {
      const redis = new Redis(process.env.TEST_REDIS_URL!, { keyPrefix: `store${process.pid}:` });
      return { store: new RedisSessionStore(redis), close: () => redis.disconnect() };
    },
  ],
];

describe.each(stores)('%s session store', (_name, make) => {
  const { store, close } = make();
  afterAll(() => close());

  it('checkpoints for its owner; a claim by another user changes nothing; a claim moves ownership', async () => {
    const id = newId();
    await store.create(record(id), 'a');
    expect(
      await store.checkpoint('a', new Map([[id, { seq: 5, pos: 120, guilds: [['12', false]] }]])),
    ).toEqual({ lost: [], missing: [] });
    expect(await store.claim(id, 'b', 'someone else')).toBeNull();
    const claimed = await store.claim(id, 'b', '7');
    expect(claimed).toEqual({ ...record(id), seq: 5, pos: 120, guilds: [['12', false]] });
    // The old owner's next checkpoint is refused: the session is another instance's now.
    expect(
      await store.checkpoint('a', new Map([[id, { seq: 6, pos: 121, guilds: null }]])),
    ).toEqual({
      lost: [id],
      missing: [],
    });
    await store.drop(id);
    expect(await store.claim(id, 'c', '7')).toBeNull();
    expect(
      await store.checkpoint('b', new Map([[id, { seq: 7, pos: 122, guilds: null }]])),
    ).toEqual({
      lost: [],
      missing: [id],
    });
  });
});
