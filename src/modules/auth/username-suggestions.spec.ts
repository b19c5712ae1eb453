import { normalizeUsername, usernameCandidates } from './username-suggestions';

describe('username suggestions', () => {
  it('transliterates non-Latin scripts', () => {
    expect(normalizeUsername('Zoë Łukasz')).toBe('zoe_lukasz');
    expect(normalizeUsername('Привет')).toBe('privet');
    expect(normalizeUsername('山田太郎')).toMatch(/^[a-z0-9_]+$/);
    expect(normalizeUsername('  --Hello,   World!! ')).toBe('hello_world');
  });

  it('gives valid, distinct candidates, the plain name first', () => {
    const c = usernameCandidates('Zoë Łukasz');
    expect(c[0]).toBe('zoe_lukasz');
    expect(c).toContain('zoelukasz');
    expect(new Set(c).size).toBe(c.length);
    for (const name of c) expect(name).toMatch(/^[a-z0-9_]{2,32}$/);
  });

  it('copes with names that transliterate to nothing or too much', () => {
    for (const name of ['🙂', '', 'x', 'a'.repeat(100)]) {
      const c = usernameCandidates(name);
      expect(c.length).toBeGreaterThanOrEqual(3);
      for (const s of c) expect(s).toMatch(/^[a-z0-9_]{2,32}$/);
    }
  });
});
