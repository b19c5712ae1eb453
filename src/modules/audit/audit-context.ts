import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import * as ipaddr from 'ipaddr.js';
import type { ParleyRequest } from '../../common/auth/caller';
import { actorOf, ANONYMOUS_ACTOR, type Actor } from './actor';
import { auditReasonOf } from './audit-reason.decorator';

/**
 * What a service needs to record an audit entry for a request besides the change itself: who
 * acts (the credential's actor, anonymous without one), why (`X-Audit-Log-Reason`) and from where.
 */
export interface AuditContext {
  actor: Actor;
  reason: string | null;
  ip: string | null;
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; null when the address is unknown or not an IP. */
export function clientIpOf(req: Pick<ParleyRequest, 'ip'>): string | null {
  if (!req.ip) return null;
  try {
    return ipaddr.process(req.ip).toString();
  } catch {
    return null;
  }
}

export function auditContextOf(req: ParleyRequest): AuditContext {
  return {
    actor: req.caller ? actorOf(req.caller) : ANONYMOUS_ACTOR,
    reason: auditReasonOf(req),
    ip: clientIpOf(req),
  };
}

const ContextParam = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  auditContextOf(ctx.switchToHttp().getRequest<ParleyRequest>()),
);

/**
 * Handler parameter: the request's {@link AuditContext}, for services that record security
 * events (an overlong `X-Audit-Log-Reason` is a 400, as on admin routes).
 */
export const RequestAudit = (): ParameterDecorator => ContextParam();
