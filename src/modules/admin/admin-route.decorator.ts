import { applyDecorators, type Type } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { Auth } from '../../common/auth/auth.decorator';
import { RateLimit } from '../../common/rate-limit/rate-limit.decorator';
import type { BucketName } from '../../config/rate-limit.config';
import { ApiAuditReason } from '../audit/audit-reason.decorator';
import type { AdminAclName } from './acls';

export interface AdminRouteOptions {
  operationId: string;
  summary: string;
  /**
   * The ACL the key must hold, or several of which it must hold one (any-of); stated in the
   * operation's description.
   */
  acl: AdminAclName | AdminAclName[];
  /** Rate-limit bucket (per key): `admin` unless the route has a tighter one. */
  bucket?: Extract<BucketName, 'admin' | 'admin:bans' | 'admin:bulk'>;
  /** The route changes state and records `X-Audit-Log-Reason`. */
  audited?: boolean;
  /** The error codes the route answers beyond credentials, ACL and validation (e.g. its 404). */
  errors?: ErrorCode[];
  /** More to say after the ACL line. */
  description?: string;
  /**
   * Request bodies Swagger UI offers in "Try it out" (the first is pre-filled). Without them it
   * fills every optional field with a placeholder (`"string"` cursors, both `ip` and `ips`) that
   * the route rightly refuses; each example here is a body the route accepts.
   */
  body?: { type: Type<unknown>; examples: Record<string, { summary: string; value: object }> };
}

/**
 * One decorator per admin route: the `adminApiKey` security and ACL check (`@Auth`), the per-key
 * rate-limit bucket, and Swagger text that names the ACL, so Swagger UI shows what a key needs.
 */
export function AdminRoute(options: AdminRouteOptions): MethodDecorator {
  const acls = [options.acl].flat();
  const required =
    acls.length === 1
      ? `**Requires ACL \`${acls[0]}\`**`
      : `**Requires one of the ACLs ${acls.map((a) => `\`${a}\``).join(', ')}**`;
  const aclLine = `${required} (or \`*\`). Authorize with \`Admin adm_<key_id>_<secret>\`.`;
  return applyDecorators(
    ApiOperation({
      operationId: options.operationId,
      summary: options.summary,
      description: options.description ? `${aclLine}\n\n${options.description}` : aclLine,
    }),
    Auth({ kind: 'admin', acl: options.acl }),
    RateLimit(options.bucket ?? 'admin'),
    ...(options.audited ? [ApiAuditReason()] : []),
    ...(options.errors ? [ApiErrors(...options.errors)] : []),
    ...(options.body
      ? [ApiBody({ type: options.body.type, examples: options.body.examples })]
      : []),
  );
}
