import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ParleyRequest } from '../../common/auth/caller';
import { RouteCredentials, type RouteCredentialResolver } from '../../common/auth/route-credential';
import { constantTimeEqual, sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { InteractionEntity } from './interaction.entity';
import { interactionIdOf } from './interaction-tokens';

/** How long an interaction's token answers (Discord's): follow-ups and edits for 15 minutes. */
export const INTERACTION_TOKEN_TTL_MS = 15 * 60_000;

/**
 * The `interaction` path credential: `/interactions/{interaction_id}/{interaction_token}/callback`
 * and `/webhooks/{application_id}/{interaction_token}/…`. No Authorization header (discord.js
 * sends none): the token is checked against its interaction's row (hash, constant time) in the
 * caller guard, before the rate limiter and before the body is read. A wrong, foreign or expired
 * token is 404 Unknown interaction (Discord's 10062).
 */
@Injectable()
export class InteractionCredentials
  implements RouteCredentialResolver<InteractionEntity>, OnModuleInit
{
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly registry: RouteCredentials,
  ) {}

  onModuleInit(): void {
    this.registry.register('interaction', this);
  }

  refusal(): ApiError {
    return new ApiError(ErrorCode.UnknownInteraction);
  }

  resolve(req: ParleyRequest): Promise<InteractionEntity | null> {
    const params = (req.params ?? {}) as Record<string, string | undefined>;
    // Also reached through the webhook routes (`/webhooks/{webhook_id}/{token}`: a follow-up).
    return this.authenticate(params.interaction_token ?? params.token, {
      interactionId: params.interaction_id,
      applicationId: params.application_id ?? params.webhook_id,
    });
  }

  /** The live interaction `token` belongs to (matching the path's ids), or null. */
  async authenticate(
    token: unknown,
    path: { interactionId?: string; applicationId?: string },
  ): Promise<InteractionEntity | null> {
    const id = interactionIdOf(token);
    if (!id) return null;
    if (path.interactionId !== undefined && parseSnowflake(path.interactionId) !== id) return null;
    const row = await this.dataSource.getRepository(InteractionEntity).findOneBy({ id });
    if (!row || !constantTimeEqual(row.tokenHash, sha256(token as string))) return null;
    if (path.applicationId !== undefined && row.applicationId !== path.applicationId) return null;
    if (Date.now() - row.createdAt.getTime() > INTERACTION_TOKEN_TTL_MS) return null;
    return row;
  }
}
