import { slugifyUsername } from './username-slug';

const VALID = /^[A-Za-z0-9_]{2,32}$/;

describe('slugifyUsername', () => {
  it('transliterates non-ASCII scripts', () => {
    expect(slugifyUsername('Zoë Łukasz')).toBe('zoe_lukasz');
    expect(slugifyUsername('Привет')).toBe('privet');
    expect(slugifyUsername('ß straße')).toBe('ss_strasse');
    expect(slugifyUsername('Ａｂｃ ﬁne')).toBe('abc_fine');
    expect(slugifyUsername('山田太郎')).toMatch(/^[a-z0-9_]{2,32}$/);
  });

  it('joins words with one underscore and drops what is not a letter or digit', () => {
    expect(slugifyUsername('  --Hello,   World!! ')).toBe('hello_world');
    expect(slugifyUsername('a__b  c')).toBe('a_b_c');
    expect(slugifyUsername("Bob's bot")).toBe('bob_s_bot');
    expect(slugifyUsername('_x_y_')).toBe('x_y');
  });

  it('lower-cases by default; bots keep their capitals', () => {
    expect(slugifyUsername('My Cool App!')).toBe('my_cool_app');
    expect(slugifyUsername('My Cool App!', { lowercase: false, fallback: 'bot' })).toBe(
      'My_Cool_App',
    );
  });

  it('cuts at 32 characters without leaving an underscore at the end', () => {
    expect(slugifyUsername('a'.repeat(100))).toBe('a'.repeat(32));
    expect(slugifyUsername(`${'a'.repeat(31)} b`)).toBe('a'.repeat(31));
    expect(slugifyUsername(`${'a'.repeat(30)} bcd`)).toBe(`${'a'.repeat(30)}_b`);
  });

  it('falls back when fewer than 2 characters remain', () => {
    expect(slugifyUsername('')).toBe('user');
    expect(slugifyUsername('🙂')).toBe('user');
    expect(slugifyUsername('!!!')).toBe('user');
    expect(slugifyUsername('x')).toBe('x_user');
    expect(slugifyUsername('', { fallback: 'bot' })).toBe('bot');
    expect(slugifyUsername('Q', { lowercase: false, fallback: 'bot' })).toBe('Q_bot');
  });

  it('always yields a valid username', () => {
    const samples = [
      '',
      ' ',
      '_',
      '__a__',
      'é',
      '🙂🙂 x',
      '\u0000\u200b',
      'a-'.repeat(40),
      '١٢٣',
      'Ǆ',
    ];
    for (const s of samples) {
      expect(slugifyUsername(s)).toMatch(VALID);
      expect(slugifyUsername(s, { lowercase: false, fallback: 'bot' })).toMatch(VALID);
    }
  });
});
