import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';

/** Distinct emoji one message may carry (Discord's limit, 30010 beyond). */
export const MAX_EMOJI_PER_MESSAGE = 20;

/** A unicode emoji is at most this many bytes of UTF-8 (the longest ZWJ sequences are ~28). */
const MAX_EMOJI_BYTES = 32;

/** Discord's custom emoji in a reaction route: `name:id` (or `a:name:id` when animated). */
const CUSTOM_EMOJI = /^(a:)?[\w~-]{1,32}:\d{1,20}$/;

/**
 * What an emoji may be made of: emoji code points and the pieces of their sequences (skin tones,
 * regional indicators, ZWJ, variation selectors, the keycap mark, the tags of subdivision flags).
 */
const EMOJI_PARTS =
  /^(?:[\p{Emoji}\p{Emoji_Component}]|\u200d|\ufe0e|\ufe0f|\u20e3|[\u{e0020}-\u{e007f}])+$/u;

/** What makes it a picture rather than a digit or `#` (which are \p{Emoji} too). */
const PICTOGRAPHIC = /[\p{Extended_Pictographic}\p{Regional_Indicator}]|\u20e3/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Checks the emoji of a reaction route (as the router decoded it from `%F0%9F%91%8D`): one
 * unicode emoji, or 400 UNKNOWN_EMOJI (Discord's 10014, which Discord also answers for a custom
 * emoji it does not know — Parley has no custom emoji, so every `name:id` is unknown).
 */
export function requireUnicodeEmoji(raw: string): string {
  if (CUSTOM_EMOJI.test(raw)) {
    throw new ApiError(
      ErrorCode.UnknownEmoji,
      'Custom emoji are not supported: react with a unicode emoji.',
    );
  }
  if (!isUnicodeEmoji(raw)) {
    throw new ApiError(ErrorCode.UnknownEmoji, 'The emoji must be a single unicode emoji.');
  }
  return raw;
}

/** One grapheme of emoji code points with something pictographic in it. */
export function isUnicodeEmoji(text: string): boolean {
  if (text.length === 0 || Buffer.byteLength(text, 'utf8') > MAX_EMOJI_BYTES) return false;
  if (!EMOJI_PARTS.test(text) || !PICTOGRAPHIC.test(text)) return false;
  let count = 0;
  for (const _ of graphemes.segment(text)) if (++count > 1) return false;
  return true;
}
