import { fieldError, type FieldError } from '../../../common/errors/api-error';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { urlProblem } from '../embeds/embed';

export type Json = Record<string, unknown>;

const SNOWFLAKE = /^\d{1,20}$/;

interface Bounds {
  min?: number;
  max?: number;
  required?: boolean;
}

/**
 * Reads one component tree: each check either copies a field (as given) to the output or records
 * a field error at its dot-joined path (`components.0.components.1.custom_id`), and custom ids are
 * unique across the tree. Unknown fields are not copied.
 */
export class ComponentReader {
  readonly errors: FieldError[] = [];
  private readonly customIds = new Set<string>();

  fail(path: string, code: FieldErrorCode, message?: string): void {
    this.errors.push(fieldError(path, code, message));
  }

  object(value: unknown, path: string): Json | null {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Json;
    this.fail(path, FieldErrorCode.BaseTypeObject);
    return null;
  }

  /** An array of `min`–`max` entries (null: not an array, or of a wrong length; reported). */
  array(
    value: unknown,
    path: string,
    { min = 0, max }: Bounds & { max: number },
  ): unknown[] | null {
    if (!Array.isArray(value)) {
      this.fail(path, FieldErrorCode.BaseTypeArray);
      return null;
    }
    if (value.length < min || value.length > max) {
      const code =
        value.length < min ? FieldErrorCode.BaseTypeMinLength : FieldErrorCode.BaseTypeMaxLength;
      this.fail(path, code, `Must be between ${min} and ${max} in length.`);
      return null;
    }
    return value as unknown[];
  }

  /** Copies `src[key]`, a string of `min`–`max` characters, to `out` (absent: fine unless required). */
  string(
    src: Json,
    out: Json,
    key: string,
    path: string,
    { min = 0, max, required }: Bounds,
  ): void {
    const value = src[key];
    if (value === undefined || value === null) {
      if (required) this.fail(`${path}.${key}`, FieldErrorCode.BaseTypeRequired);
      return;
    }
    if (typeof value !== 'string')
      return this.fail(`${path}.${key}`, FieldErrorCode.BaseTypeString);
    if (value.length < min || (max !== undefined && value.length > max)) {
      const code =
        value.length < min ? FieldErrorCode.BaseTypeMinLength : FieldErrorCode.BaseTypeMaxLength;
      return this.fail(`${path}.${key}`, code, `Must be between ${min} and ${max} in length.`);
    }
    out[key] = value;
  }

  /** Copies `src[key]`, an integer in `min`–`max`, to `out`. */
  integer(
    src: Json,
    out: Json,
    key: string,
    path: string,
    { min = 0, max, required }: Bounds,
  ): void {
    const value = src[key];
    if (value === undefined || value === null) {
      if (required) this.fail(`${path}.${key}`, FieldErrorCode.BaseTypeRequired);
      return;
    }
    if (!Number.isSafeInteger(value)) {
      return this.fail(`${path}.${key}`, FieldErrorCode.BaseTypeInteger);
    }
    const n = value as number;
    if (n < min)
      return this.fail(`${path}.${key}`, FieldErrorCode.NumberTypeMin, `Must be ${min} or more.`);
    if (max !== undefined && n > max) {
      return this.fail(`${path}.${key}`, FieldErrorCode.NumberTypeMax, `Must be ${max} or less.`);
    }
    out[key] = n;
  }

  boolean(src: Json, out: Json, key: string, path: string): void {
    const value = src[key];
    if (value === undefined || value === null) return;
    if (typeof value !== 'boolean')
      return this.fail(`${path}.${key}`, FieldErrorCode.BaseTypeBoolean);
    out[key] = value;
  }

  /** The component's `id` (Discord's optional 32-bit identifier), copied when given. */
  componentId(src: Json, out: Json, path: string): void {
    this.integer(src, out, 'id', path, { min: 0, max: 2 ** 31 - 1 });
  }

  /** A required `custom_id` of 1–100 characters, unique within the message (or modal). */
  customId(src: Json, out: Json, path: string): void {
    this.string(src, out, 'custom_id', path, { min: 1, max: 100, required: true });
    const id = out.custom_id;
    if (typeof id !== 'string') return;
    if (this.customIds.has(id))
      this.fail(`${path}.custom_id`, FieldErrorCode.ComponentCustomIdDuplicated);
    this.customIds.add(id);
  }

  /** A field this kind of component may not carry (a link button's `custom_id`, …). */
  absent(src: Json, key: string, path: string, why: string): void {
    if (src[key] !== undefined && src[key] !== null) {
      this.fail(`${path}.${key}`, FieldErrorCode.ComponentFieldNotAllowed, why);
    }
  }

  /** A link: `http`/`https` only (a `javascript:` URL would run in every client that shows it). */
  url(src: Json, out: Json, key: string, path: string): void {
    this.string(src, out, key, path, { min: 1, max: 512, required: true });
    if (typeof out[key] !== 'string') return;
    const problem = urlProblem(out[key], 'link');
    if (problem) {
      delete out[key];
      this.fail(`${path}.${key}`, problem);
    }
  }

  /** Copies a partial emoji (`id`, `name`, `animated`); it needs an id or a name. */
  emoji(src: Json, out: Json, path: string): void {
    if (src.emoji === undefined || src.emoji === null) return;
    const at = `${path}.emoji`;
    const emoji = this.object(src.emoji, at);
    if (!emoji) return;
    const copy: Json = {};
    // discord.py sends a custom emoji's id as a JSON number.
    const id = typeof emoji.id === 'number' ? String(emoji.id) : emoji.id;
    if (id !== undefined && id !== null) this.snowflake({ id }, copy, 'id', at);
    this.string(emoji, copy, 'name', at, { min: 1, max: 100 });
    this.boolean(emoji, copy, 'animated', at);
    if ((emoji.id ?? null) === null && (emoji.name ?? null) === null) {
      this.fail(at, FieldErrorCode.BaseTypeRequired, 'An emoji needs an id or a name.');
    }
    out.emoji = copy;
  }

  /** A snowflake id (default values of auto-populated selects). */
  snowflake(src: Json, out: Json, key: string, path: string): void {
    const value = src[key];
    if (typeof value === 'string' && SNOWFLAKE.test(value)) out[key] = value;
    else this.fail(`${path}.${key}`, FieldErrorCode.BaseTypeSnowflake);
  }
}
