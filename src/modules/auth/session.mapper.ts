import type { AuthSessionResponse } from './auth.response';
import type { SessionEntity } from './session.entity';

export function toAuthSession(
  session: SessionEntity,
  currentSessionId: string,
): AuthSessionResponse {
  return {
    id_hash: session.tokenHash.toString('base64url'),
    approx_last_used_at: session.approxLastUsedAt?.toISOString() ?? null,
    client_info: session.clientInfo,
    current: session.id === currentSessionId,
  };
}
