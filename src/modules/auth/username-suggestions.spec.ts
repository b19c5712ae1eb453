import { usernameCandidates } from './username-suggestions';

// The slug itself (transliteration, separators, length) is specified in users/username-slug.spec.ts.
describe('username suggestions', () => {
  it('starts from the slug of the name', () => {
    expect(usernameCandidates('Привет')[0]).toBe('privet');
    expect(usernameCandidates('  --Hello,   World!! ')[0]).toBe('hello_world');
    expect(usernameCandidates('x')[0]).toBe('x_user');
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
