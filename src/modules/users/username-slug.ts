import type { transliterate as Transliterate } from 'transliteration';

// Loaded on first use: its tables are ~30 ms of every start, and only sign-ups need them.
let transliterateFn: typeof Transliterate | undefined;
function transliterate(value: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  transliterateFn ??= (require('transliteration') as { transliterate: typeof Transliterate })
    .transliterate;
  return transliterateFn(value);
}

export interface UsernameSlugOptions {
  /** Lower-case the result (user names); bots keep their application's capitals. */
  lowercase?: boolean;
  /** What a name with fewer than 2 usable characters becomes (`x` → `x_user`, `🙂` → `user`). */
  fallback?: string;
}

/**
 * Any display name → a valid username, `[A-Za-z0-9_]{2,32}`: transliterated to ASCII
 * (`Zoë Łukasz` → `zoe_lukasz`, `Привет` → `privet`), every run of other characters one `_`, no
 * `_` at either end, cut at 32. Used for registration without a username, username suggestions
 * and bot users named after their application.
 */
export function slugifyUsername(value: string, options: UsernameSlugOptions = {}): string {
  const { lowercase = true, fallback = 'user' } = options;
  const ascii = transliterate(value.normalize('NFKC'));
  const slug = (lowercase ? ascii.toLowerCase() : ascii)
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 32)
    .replace(/_+$/, '');
  if (slug.length >= 2) return slug;
  return slug ? `${slug}_${fallback}` : fallback;
}
