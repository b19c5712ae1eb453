import * as ipaddr from 'ipaddr.js';
import type { ParleyRequest } from '../../common/auth/caller';
import type { SessionOrigin } from './sessions.service';

/** `::ffff:1.2.3.4` → `1.2.3.4`, so one client is one row in `authorized_ips`. */
export function normalizeIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  try {
    return ipaddr.process(ip).toString();
  } catch {
    return null;
  }
}

/** Where a request comes from (the client IP honours X-Forwarded-For only with TRUST_PROXY). */
export const originOf = (req: ParleyRequest): SessionOrigin => ({
  ip: normalizeIp(req.ip),
  userAgent: req.headers['user-agent'],
});

/** `jane@example.com` → `j***@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
