import { hasVisibleCharacter } from './visible-text';

describe('hasVisibleCharacter', () => {
  it.each([
    ['', 'empty'],
    ['   ', 'spaces'],
    ['\u200b\u200c\u200d', 'zero-width space, non-joiner, joiner'],
    ['\u202e\u202d\u202c', 'bidi overrides'],
    ['\u2066\u2069\u200e\u200f\u061c', 'bidi isolates and marks'],
    ['\u2060\ufeff\u00ad', 'word joiner, BOM, soft hyphen'],
    ['\u3164\u115f\u1160\uffa0', 'Hangul fillers'],
    ['\u2800\u2800', 'Braille blanks'],
    ['\u0301\u0308', 'combining marks alone'],
    ['\ufe0f\u{e0041}', 'a variation selector and a tag'],
    ['\u00a0\u3000\u2028', 'other spaces and a line separator'],
  ])('refuses %j (%s)', (value) => {
    expect(hasVisibleCharacter(value)).toBe(false);
  });

  it.each(['a', 'Zoë', '\u202eevil', ' x ', '山田', '😀', 'a\u0301', '\u200bB', '١'])(
    'accepts %j',
    (value) => {
      expect(hasVisibleCharacter(value)).toBe(true);
    },
  );
});
