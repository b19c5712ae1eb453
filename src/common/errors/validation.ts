import { ValidationError } from 'class-validator';
import { ApiError, FieldError } from './api-error';

// class-validator constraint → envelope code, in the style of Discord's BASE_TYPE_* codes.
const CODES: Record<string, string> = {
  isDefined: 'BASE_TYPE_REQUIRED',
  isNotEmpty: 'BASE_TYPE_REQUIRED',
  whitelistValidation: 'UNKNOWN_FIELD',
  isString: 'BASE_TYPE_STRING',
  isBoolean: 'BASE_TYPE_BOOLEAN',
  isInt: 'BASE_TYPE_INTEGER',
  isNumber: 'BASE_TYPE_NUMBER',
  isArray: 'BASE_TYPE_ARRAY',
  isObject: 'BASE_TYPE_OBJECT',
  isEmail: 'INVALID_EMAIL',
  isUrl: 'INVALID_URL',
  minLength: 'BASE_TYPE_MIN_LENGTH',
  maxLength: 'BASE_TYPE_MAX_LENGTH',
  length: 'BASE_TYPE_BAD_LENGTH',
  min: 'NUMBER_TYPE_MIN',
  max: 'NUMBER_TYPE_MAX',
  arrayMaxSize: 'BASE_TYPE_MAX_LENGTH',
  arrayMinSize: 'BASE_TYPE_MIN_LENGTH',
  isIn: 'BASE_TYPE_CHOICES',
  isEnum: 'BASE_TYPE_CHOICES',
  matches: 'BASE_TYPE_FORMAT',
  equals: 'BASE_TYPE_CHOICES',
};

const toCode = (constraint: string) =>
  CODES[constraint] ?? `INVALID_${constraint.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;

/** Flattens class-validator's tree into `[{path, code, message}]` (path dot-joined, `root` if empty). */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    for (const [constraint, message] of Object.entries(e.constraints ?? {})) {
      const ctx = e.contexts?.[constraint] as { code?: string } | undefined;
      out.push({ path: path || 'root', code: ctx?.code ?? toCode(constraint), message });
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path));
  }
  return out;
}

export function validationExceptionFactory(errors: ValidationError[]): ApiError {
  return ApiError.form(flattenValidationErrors(errors));
}
