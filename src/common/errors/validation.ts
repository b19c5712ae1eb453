import { ValidationError } from 'class-validator';
import { ApiError, FieldError } from './api-error';
import { FieldErrorCode } from './field-error-code';

// class-validator constraint → envelope code, in the style of Discord's BASE_TYPE_* codes. A
// decorator may name its own code instead: `{ context: { code: FieldErrorCode.UsernameInvalid } }`.
export const CONSTRAINT_CODES: Record<string, FieldErrorCode> = {
  isDefined: FieldErrorCode.BaseTypeRequired,
  isNotEmpty: FieldErrorCode.BaseTypeRequired,
  whitelistValidation: FieldErrorCode.UnknownField,
  isString: FieldErrorCode.BaseTypeString,
  isBoolean: FieldErrorCode.BaseTypeBoolean,
  isInt: FieldErrorCode.BaseTypeInteger,
  isNumber: FieldErrorCode.BaseTypeNumber,
  isArray: FieldErrorCode.BaseTypeArray,
  isObject: FieldErrorCode.BaseTypeObject,
  isEmail: FieldErrorCode.InvalidEmail,
  isUrl: FieldErrorCode.InvalidUrl,
  minLength: FieldErrorCode.BaseTypeMinLength,
  maxLength: FieldErrorCode.BaseTypeMaxLength,
  // `@Length` without a context code: what the wire has always said for it.
  isLength: FieldErrorCode.InvalidIsLength,
  min: FieldErrorCode.NumberTypeMin,
  max: FieldErrorCode.NumberTypeMax,
  arrayMaxSize: FieldErrorCode.BaseTypeMaxLength,
  arrayMinSize: FieldErrorCode.BaseTypeMinLength,
  isIn: FieldErrorCode.BaseTypeChoices,
  isEnum: FieldErrorCode.BaseTypeChoices,
  matches: FieldErrorCode.BaseTypeFormat,
  isDateString: FieldErrorCode.BaseTypeFormat,
  equals: FieldErrorCode.BaseTypeChoices,
  isSnowflake: FieldErrorCode.InvalidIsSnowflake,
  isVisibleText: FieldErrorCode.NameInvisible,
};

const codeOf = (constraint: string, context: unknown): FieldErrorCode =>
  (context as { code?: FieldErrorCode } | undefined)?.code ??
  CONSTRAINT_CODES[constraint] ??
  FieldErrorCode.BaseTypeInvalid;

/** Flattens class-validator's tree into `[{path, code, message}]` (path dot-joined, `root` if empty). */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    for (const [constraint, message] of Object.entries(e.constraints ?? {})) {
      out.push({
        path: path || 'root',
        code: codeOf(constraint, e.contexts?.[constraint]),
        message,
      });
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path));
  }
  return out;
}

export function validationExceptionFactory(errors: ValidationError[]): ApiError {
  return ApiError.form(flattenValidationErrors(errors));
}
