import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage, IsString, Length, Matches, validateSync } from 'class-validator';
import { ApiError } from './api-error';
import { FIELD_ERROR_TABLE, FieldErrorCode } from './field-error-code';
import { CONSTRAINT_CODES, flattenValidationErrors } from './validation';

const CODES = new Set<string>(Object.values(FieldErrorCode));

function dtoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return dtoFiles(path);
    return name.endsWith('.dto.ts') ? [path] : [];
  });
}

describe('FieldErrorCode', () => {
  it('gives every code a default message, and no two members share a code', () => {
    const values = Object.values(FieldErrorCode);
    expect(new Set(values).size).toBe(values.length);
    for (const code of values) expect(FIELD_ERROR_TABLE[code].message).toMatch(/\S/);
  });

  it('ApiError.field defaults the message from the table and keeps a given one', () => {
    expect(ApiError.field('email', FieldErrorCode.EmailAlreadyRegistered).toBody()).toEqual({
      code: 'INVALID_FORM_BODY',
      message: 'Invalid form body.',
      errors: [
        {
          path: 'email',
          code: 'EMAIL_ALREADY_REGISTERED',
          message: 'Email is already registered.',
        },
      ],
    });
    expect(
      ApiError.field('name', FieldErrorCode.BaseTypeRequired, 'Channel name must not be blank.')
        .extra,
    ).toEqual({
      errors: [
        { path: 'name', code: 'BASE_TYPE_REQUIRED', message: 'Channel name must not be blank.' },
      ],
    });
  });

  it('every validation decorator of every DTO maps to a listed code (none falls back)', async () => {
    for (const file of dtoFiles(join(__dirname, '../..'))) await import(file);
    const metadata = [
      ...(
        getMetadataStorage() as unknown as {
          validationMetadatas: Map<
            unknown,
            Array<{
              name?: string;
              type: string;
              context?: unknown;
              target: unknown;
              propertyName: string;
            }>
          >;
        }
      ).validationMetadatas.values(),
    ].flat();
    expect(metadata.length).toBeGreaterThan(50);
    const unmapped: string[] = [];
    for (const m of metadata) {
      if (m.type !== 'customValidation') continue;
      const code = (m.context as { code?: unknown } | undefined)?.code;
      if (code !== undefined) {
        if (!CODES.has(code as string))
          unmapped.push(`${m.propertyName}: context ${JSON.stringify(code)}`);
      } else if (!m.name || !(m.name in CONSTRAINT_CODES)) {
        unmapped.push(`${m.propertyName}: constraint ${m.name}`);
      }
    }
    expect(unmapped).toEqual([]);
  });

  it('flattens validation errors: a context code wins, then the constraint’s, then BASE_TYPE_INVALID', () => {
    class Dto {
      @Matches(/^a$/, {
        message: 'name must be a',
        context: { code: FieldErrorCode.UsernameInvalid },
      })
      @IsString()
      name: unknown;

      @Length(2, 3)
      title: unknown;
    }
    const dto = Object.assign(new Dto(), { name: 5, title: 'x' });
    const errors = flattenValidationErrors(validateSync(dto));
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'name', code: 'USERNAME_INVALID', message: 'name must be a' },
        { path: 'name', code: 'BASE_TYPE_STRING', message: 'name must be a string' },
        { path: 'title', code: 'INVALID_IS_LENGTH', message: expect.any(String) },
      ]),
    );
    expect(
      flattenValidationErrors([
        { property: '', constraints: { somethingNew: 'bad' }, children: [] },
      ]),
    ).toEqual([{ path: 'root', code: 'BASE_TYPE_INVALID', message: 'bad' }]);
  });
});
