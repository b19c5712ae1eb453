import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { isUnicodeEmoji, requireUnicodeEmoji } from './emoji';

describe('reaction emoji', () => {
  it.each([
    ['thumbs up', '👍'],
    ['with a skin tone', '👍🏽'],
    ['a ZWJ family', '👨‍👩‍👧‍👦'],
    ['a flag', '🇫🇷'],
    ['a subdivision flag', '🏴󠁧󠁢󠁳󠁣󠁴󠁿'],
    ['a keycap', '1️⃣'],
    ['a text-style symbol made emoji', '❤️'],
    ['a plain heart', '❤'],
  ])('accepts %s', (_name, emoji) => {
    expect(isUnicodeEmoji(emoji)).toBe(true);
  });

  it.each([
    ['nothing', ''],
    ['a word', 'thumbsup'],
    ['a digit', '1'],
    ['a hash', '#'],
    ['two emoji', '👍👍'],
    ['an emoji and text', '👍a'],
    ['a letter with an accent', 'é'],
    ['a lone ZWJ', '\u200d'],
    ['a lone skin tone', '🏽'.repeat(2)],
    ['too many bytes', '👨‍👩‍👧‍👦'.repeat(2)],
  ])('refuses %s', (_name, text) => {
    expect(isUnicodeEmoji(text)).toBe(false);
  });

  it('answers UNKNOWN_EMOJI, naming custom emoji as unsupported', () => {
    for (const [raw, message] of [
      ['parley:123456789012345678', /Custom emoji/],
      ['a:dance:123456789012345678', /Custom emoji/],
      ['thumbsup', /single unicode emoji/],
    ] as const) {
      let error: unknown;
      try {
        requireUnicodeEmoji(raw);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe(ErrorCode.UnknownEmoji);
      expect((error as ApiError).message).toMatch(message);
    }
    expect(requireUnicodeEmoji('👍')).toBe('👍');
  });
});
