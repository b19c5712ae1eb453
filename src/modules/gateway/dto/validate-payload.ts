import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CloseCode } from '../protocol';

/**
 * Validates a frame's `d` as its DTO (the same class-validator rules as HTTP bodies): the DTO, or
 * the close code for its first invalid field (`codes`, else 4002 Decode error).
 */
export function validatePayload<T extends object>(
  dto: ClassConstructor<T>,
  d: unknown,
  codes: Partial<Record<keyof T, CloseCode>>,
): { ok: true; value: T } | { ok: false; close: CloseCode } {
  if (d === null || typeof d !== 'object' || Array.isArray(d)) {
    return { ok: false, close: CloseCode.DecodeError };
  }
  const value = plainToInstance(dto, d);
  const errors = validateSync(value, { forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length === 0) return { ok: true, value };
  for (const err of errors) {
    const code = codes[err.property as keyof T];
    if (code !== undefined) return { ok: false, close: code };
  }
  return { ok: false, close: CloseCode.DecodeError };
}
