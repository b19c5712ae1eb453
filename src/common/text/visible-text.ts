import { ValidateBy, type ValidationOptions } from 'class-validator';

// Characters that draw nothing on their own: white space, format and bidirectional controls
// (U+200E/F, U+202A–E, U+2066–9), zero-width characters and other default-ignorable code points
// (U+200B–D, U+2060, U+FEFF, U+00AD, variation selectors, tags), combining marks with nothing to
// combine with, and the blank-looking letters (Hangul fillers are default-ignorable too; the
// Braille blank U+2800 is not, but renders as nothing).
const INVISIBLE_ONLY =
  /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{Cc}\p{Cf}\p{M}\u2800]*$/u;

/** Whether a name shows at least one visible character (a name of only controls does not). */
export function hasVisibleCharacter(value: string): boolean {
  return !INVISIBLE_ONLY.test(value);
}

/**
 * A display name must show something: one made only of spaces, bidi controls or zero-width
 * characters passes a length check yet renders as nothing (or reverses the text after it),
 * which is how impersonation and "invisible" names are made.
 */
export function IsVisibleText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isVisibleText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || hasVisibleCharacter(value),
        defaultMessage: () => '$property must contain at least one visible character',
      },
    },
    options,
  );
}
