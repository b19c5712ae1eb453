import { randomInt } from 'node:crypto';
import { slugifyUsername } from '../users/username-slug';

const VALID = /^[a-z0-9_]{2,32}$/;

/** Appends a suffix, trimming the base so that the result still fits in 32 characters. */
function withSuffix(base: string, suffix: string): string {
  return `${base.slice(0, 32 - suffix.length).replace(/_+$/, '')}${suffix}`;
}

/**
 * Candidate usernames for a display name, best first, de-duplicated, all `[a-z0-9_]{2,32}`:
 * the transliterated name, its joined and first-word forms, then numbered variants.
 */
export function usernameCandidates(globalName: string, random = randomInt): string[] {
  const base = slugifyUsername(globalName);
  const words = base.split('_').filter(Boolean);
  const out = [
    base,
    words.join(''),
    words[0],
    words.length > 1 ? `${words[0]}_${words[words.length - 1]}` : '',
    withSuffix(base, `_${random(10, 100)}`),
    withSuffix(base, String(random(100, 1000))),
    withSuffix(words.join(''), `_${random(1000, 10000)}`),
    withSuffix(base, `_${random(10000, 100000)}`),
  ];
  return [...new Set(out.filter((c) => VALID.test(c)))];
}
