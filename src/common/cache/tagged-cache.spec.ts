import { TaggedCache } from './tagged-cache';

const session = (id: string, userId = 'u1') => ({ sessionId: id, userId });
type Session = ReturnType<typeof session>;
const tags = (s: Session) => [`s:${s.sessionId}`, `u:${s.userId}`];

describe('TaggedCache', () => {
  let cache: TaggedCache<Session>;
  const put = (key: string, s: Session, generation = cache.currentGeneration, now?: number) =>
    cache.set(key, s, tags(s), generation, now);
  beforeEach(() => {
    cache = new TaggedCache(3, 60_000);
    cache.setEnabled(true);
  });

  it('serves what it cached and drops entries by tag', () => {
    put('k1', session('s1'));
    put('k2', session('s2'));
    expect(cache.get('k1')).toEqual(session('s1'));
    cache.invalidate('s:s1');
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k2')).toEqual(session('s2'));
    cache.invalidate('u:u1');
    expect(cache.get('k2')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not cache a lookup that raced with an invalidation', () => {
    const generation = cache.currentGeneration;
    cache.invalidate('s:s1'); // arrives while the lookup of s1 is in flight
    put('k1', session('s1'), generation);
    expect(cache.get('k1')).toBeUndefined();
  });

  it('serves nothing while invalidations cannot be received, and starts empty again', () => {
    put('k1', session('s1'));
    cache.setEnabled(false);
    expect(cache.get('k1')).toBeUndefined();
    put('k1', session('s1'));
    expect(cache.size).toBe(0);
    cache.setEnabled(true);
    expect(cache.get('k1')).toBeUndefined();
  });

  it('is bounded: the oldest entry goes first', () => {
    for (const id of ['a', 'b', 'c', 'd']) put(id, session(id));
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toEqual(session('d'));
    // Dropped entries leave no tag behind: invalidating them is a no-op.
    cache.invalidate('s:a');
    expect(cache.size).toBe(3);
  });

  it('expires entries after the TTL, or earlier at their own expiry', () => {
    const now = 1_000_000;
    put('s', session('s1'), cache.currentGeneration, now);
    cache.set('t', session('s2'), tags(session('s2')), cache.currentGeneration, now, now + 1_000);
    expect(cache.get('t', now + 999)).toEqual(session('s2'));
    expect(cache.get('t', now + 1_000)).toBeUndefined();
    expect(cache.get('s', now + 59_999)).toEqual(session('s1'));
    expect(cache.get('s', now + 60_000)).toBeUndefined();
  });

  it('refuses to cache a tag for a moment after it was invalidated (a change not yet committed)', () => {
    const now = 5_000_000;
    cache.invalidate('u:u1', now);
    const g = cache.currentGeneration;
    put('k1', session('s1', 'u1'), g, now + 1_000);
    expect(cache.get('k1', now + 1_000)).toBeUndefined();
    put('k2', session('s2', 'u2'), g, now + 1_000);
    expect(cache.get('k2', now + 1_000)).toEqual(session('s2', 'u2'));
    put('k1', session('s1', 'u1'), cache.currentGeneration, now + 2_000);
    expect(cache.get('k1', now + 2_000)).toEqual(session('s1', 'u1'));
  });
});
