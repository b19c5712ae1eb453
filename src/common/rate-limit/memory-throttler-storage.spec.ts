import { MemoryThrottlerStorage } from './memory-throttler-storage';

describe('MemoryThrottlerStorage (fixed window)', () => {
  let storage: MemoryThrottlerStorage;
  beforeEach(() => {
    storage = new MemoryThrottlerStorage();
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('counts hits in a window, blocks past the limit for blockDuration, then starts afresh', async () => {
    for (let i = 1; i <= 3; i++) {
      expect(await storage.increment('k', 10_000, 3, 10_000, 'b')).toEqual({
        totalHits: i,
        timeToExpire: 10,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
    }
    jest.setSystemTime(1_000_000 + 2_500);
    expect(await storage.increment('k', 10_000, 3, 10_000, 'b')).toMatchObject({
      isBlocked: true,
      timeToBlockExpire: 10,
      timeToExpire: 8,
    });
    // Still blocked, and blocked hits do not extend the block.
    jest.setSystemTime(1_000_000 + 9_000);
    expect(await storage.increment('k', 10_000, 3, 10_000, 'b')).toMatchObject({
      isBlocked: true,
      timeToBlockExpire: 4,
    });
    jest.setSystemTime(1_000_000 + 12_600);
    expect(await storage.increment('k', 10_000, 3, 10_000, 'b')).toEqual({
      totalHits: 1,
      timeToExpire: 10,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('keeps keys apart and resets a window when it ends', async () => {
    await storage.increment('a', 1_000, 2, 1_000, 'b');
    await storage.increment('a', 1_000, 2, 1_000, 'b');
    expect(await storage.increment('b', 1_000, 2, 1_000, 'b')).toMatchObject({ totalHits: 1 });
    jest.setSystemTime(1_000_000 + 1_000);
    expect(await storage.increment('a', 1_000, 2, 1_000, 'b')).toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
  });

  it('sweeps windows that ended, but not live blocks', async () => {
    for (let i = 0; i < 3; i++) await storage.increment('blocked', 1_000, 1, 60_000, 'b');
    await storage.increment('idle', 1_000, 5, 1_000, 'b');
    jest.setSystemTime(1_000_000 + 5_000);
    storage.sweep();
    expect(storage.size).toBe(1);
    expect(await storage.increment('blocked', 1_000, 1, 60_000, 'b')).toMatchObject({
      isBlocked: true,
    });
  });
});
