import type { AdminApiKeyEntity } from './admin-api-key.entity';
import type { CreateAdminApiKeyResponse, ListAdminApiKeyResponse } from './admin-api-key.response';

export function toListAdminApiKey(key: AdminApiKeyEntity): ListAdminApiKeyResponse {
  return {
    key_id: key.id,
    name: key.name,
    acls: key.acls,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
  };
}

export function toCreatedAdminApiKey(
  key: AdminApiKeyEntity,
  secret: string,
): CreateAdminApiKeyResponse {
  return {
    key_id: key.id,
    key: secret,
    name: key.name,
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt?.toISOString() ?? null,
    acls: key.acls,
  };
}
