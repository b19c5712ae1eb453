import { EMBED_LIMITS, truncate } from './truncate';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('truncate', () => {
  it('leaves strings at or under the limit untouched', () => {
    expect(truncate('abcde', 5)).toBe('abcde');
    expect(truncate('abc', 5)).toBe('abc');
    expect(truncate('', 5)).toBe('');
    expect(truncate('😀😀', 4)).toBe('😀😀'); // exactly four code units
    const exact = 'x'.repeat(EMBED_LIMITS.title);
    expect(truncate(exact, EMBED_LIMITS.title)).toBe(exact);
  });

  it('ends a truncated string with an ellipsis inside the limit', () => {
    expect(truncate('abcdef', 5)).toBe('abcd…');
    expect(truncate('abcdef', 5)).toHaveLength(5);
    expect(truncate('abcdef', 1)).toBe('…');
  });

  it('never splits a surrogate pair at the boundary', () => {
    // "a😀b": the cut for max 3 would land between the two halves of 😀.
    expect(truncate('a😀b', 3)).toBe('a…');
    expect(truncate('😀😀😀', 4)).toBe('😀…');
    expect(truncate('😀😀😀', 5)).toBe('😀😀…');
    expect(truncate('😀😀😀', 2)).toBe('…');
  });

  it('keeps pairs whole for every limit', () => {
    const text = 'a😀b🎉漢字👍🏽x'.repeat(5);
    for (let max = 0; max <= text.length + 1; max++) {
      const out = truncate(text, max);
      expect(out.length).toBeLessThanOrEqual(max);
      expect(out).not.toMatch(LONE_SURROGATE);
      if (max < text.length && max > 0) expect(out.endsWith('…')).toBe(true);
      if (max >= text.length) expect(out).toBe(text);
    }
  });

  it('treats zero, negative and non-finite limits as nothing allowed', () => {
    expect(truncate('abc', 0)).toBe('');
    expect(truncate('abc', -1)).toBe('');
    expect(truncate('abc', Number.NaN)).toBe('');
    expect(truncate('abc', 2.9)).toBe('a…');
  });

  it('exposes the message limits', () => {
    expect(EMBED_LIMITS).toEqual({
      title: 256,
      description: 4096,
      fieldName: 256,
      fieldValue: 1024,
      author: 256,
      footer: 2048,
      content: 2000,
      fields: 25,
    });
  });
});
