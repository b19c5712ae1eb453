import { fieldError, type FieldError } from '../../common/errors/api-error';
import { FieldErrorCode as F } from '../../common/errors/field-error-code';
import type { Localizations } from './command-types';

/** Discord's bound on integer and number option values (±2^53). */
const MAX_NUMBER = 2 ** 53;

/** Discord's locales (the keys of `name_localizations` and `description_localizations`). */
export const LOCALES = new Set(
  (
    'id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el ' +
    'bg ru uk hi th zh-CN ja zh-TW ko'
  ).split(' '),
);

// Lower-case letters, digits, - and _ in any script (Discord's regex); no spaces.
const CHAT_INPUT_NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const join = (prefix: string, key: string | number) =>
  prefix ? `${prefix}.${key}` : String(key);

/** Collects the field errors of one body. */
export class Checker {
  readonly errors: FieldError[] = [];

  fail(path: string, code: F, message?: string): void {
    this.errors.push(fieldError(path, code, message));
  }

  /** A command's or option's name: CHAT_INPUT's lower-case rule, or 1-32 of anything. */
  name(path: string, value: unknown, chatInput: boolean): string {
    if (typeof value !== 'string') {
      this.fail(path, value === undefined ? F.BaseTypeRequired : F.BaseTypeString);
      return '';
    }
    const ok = chatInput
      ? CHAT_INPUT_NAME.test(value) && value === value.toLowerCase()
      : value.length >= 1 && value.length <= 32 && value.trim().length > 0;
    if (!ok) this.fail(path, F.ApplicationCommandInvalidName);
    return value;
  }

  /** A string of 1-`max` characters (absent: required). */
  text(path: string, value: unknown, max: number): string {
    if (typeof value !== 'string') {
      this.fail(path, value === undefined ? F.BaseTypeRequired : F.BaseTypeString);
      return '';
    }
    if (value.length < 1 || value.length > max) {
      this.fail(path, F.ApplicationCommandInvalidDescription, `Must be 1 to ${max} characters.`);
    }
    return value;
  }

  localizations(
    path: string,
    value: unknown,
    each: (p: string, v: unknown) => void,
  ): Localizations {
    if (value === undefined || value === null) return null;
    if (!isObject(value)) {
      this.fail(path, F.BaseTypeObject);
      return null;
    }
    for (const [locale, text] of Object.entries(value)) {
      if (!LOCALES.has(locale)) {
        this.fail(join(path, locale), F.BaseTypeChoices, `Unknown locale: ${locale}.`);
      } else each(join(path, locale), text);
    }
    return Object.keys(value).length > 0 ? (value as Record<string, string>) : null;
  }

  bool(path: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') this.fail(path, F.BaseTypeBoolean);
    return value === true;
  }

  /** An array of integers out of `allowed` (null/absent: `fallback`). */
  intList<T extends number[] | null>(
    path: string,
    value: unknown,
    allowed: Set<number>,
    fallback: T,
  ): number[] | T {
    if (value === undefined || value === null) return fallback;
    if (!Array.isArray(value)) {
      this.fail(path, F.BaseTypeArray);
      return fallback;
    }
    value.forEach((v, i) => {
      if (!Number.isInteger(v) || !allowed.has(v as number)) {
        this.fail(join(path, i), F.BaseTypeChoices, `Must be one of ${[...allowed].join(', ')}.`);
      }
    });
    return [...new Set(value as number[])];
  }

  number(path: string, value: unknown, integer: boolean): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (integer && !Number.isInteger(value))
    ) {
      this.fail(path, integer ? F.BaseTypeInteger : F.BaseTypeNumber);
      return undefined;
    }
    if (Math.abs(value) > MAX_NUMBER)
      this.fail(path, F.NumberTypeMax, `Must be within ±${MAX_NUMBER}.`);
    return value;
  }
}

/** `{key: value}` when there are localizations, else nothing: options and choices omit them. */
export const localized = <K extends string>(key: K, value: Localizations) =>
  (value ? { [key]: value } : {}) as { [k in K]?: Record<string, string> };
