import { toUserPartial } from '../users/user.mapper';
import type { UserEntity } from '../users/user.entity';
import type { WebhookEntity } from './webhook.entity';
import type { WebhookResponse, WebhookTokenResponse } from './webhook.response';

/** `token` is the decrypted token (the entity holds only its hash and ciphertext). */
export function toWebhookTokenResponse(w: WebhookEntity, token: string): WebhookTokenResponse {
  return {
    id: w.id,
    type: w.type,
    guild_id: w.guildId,
    channel_id: w.channelId,
    name: w.name,
    avatar: w.avatar,
    token,
  };
}

export function toWebhookResponse(
  w: WebhookEntity,
  token: string,
  creator: UserEntity | null | undefined,
): WebhookResponse {
  return {
    ...toWebhookTokenResponse(w, token),
    user: creator ? toUserPartial(creator) : null,
    signing_secret_set: Boolean(w.signingSecretEncrypted),
  };
}
