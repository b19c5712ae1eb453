import { applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { HttpRequest } from '../../common/http/http-types';
import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';

export const AUDIT_REASON_HEADER = 'x-audit-log-reason';
export const MAX_AUDIT_REASON = 512;

/**
 * The request's `X-Audit-Log-Reason` (URL-decoded, as Discord clients send it), null when absent
 * or blank. Longer than 512 characters → 400 with the header as the field path.
 */
export function auditReasonOf(req: Pick<HttpRequest, 'headers'>): string | null {
  const raw = req.headers[AUDIT_REASON_HEADER];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string') return null;
  let decoded = value;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    // Not percent-encoded text: record it as sent.
  }
  decoded = decoded.trim();
  if (decoded.length === 0) return null;
  if (decoded.length > MAX_AUDIT_REASON) {
    throw ApiError.field(
      'X-Audit-Log-Reason',
      FieldErrorCode.BaseTypeMaxLength,
      `Must be at most ${MAX_AUDIT_REASON} characters.`,
    );
  }
  return decoded;
}

/** Documents `X-Audit-Log-Reason` on a route that records it. */
export const ApiAuditReason = () =>
  applyDecorators(
    ApiHeader({
      name: 'X-Audit-Log-Reason',
      required: false,
      description:
        'Why this change is made (≤ 512 characters, URL-encoded); kept in the audit log.',
    }),
  );
