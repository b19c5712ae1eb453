import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { BotCaller } from '../../common/auth/caller';
import type { CredentialResolver } from '../../common/auth/credential-resolvers';
import { CredentialResolvers } from '../../common/auth/credential-resolvers';
import { sha256 } from '../../common/crypto/tokens';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { PreparedStatement } from '../../database/prepared';
import { ApplicationFlags } from './application-flags';

const BOT_TOKEN = /^(\d{1,20})\.([A-Za-z0-9_-]{43})$/;
const BOT_USER = new PreparedStatement<{ bot_user_id: string; flags: number }>(
  'parley_bot_user_and_flags_by_token',
  'SELECT bot_user_id::text AS bot_user_id, flags FROM oauth2_applications WHERE id = $1 AND bot_token_hash = $2',
);
/** Either flag lets a bot read message content (the verified and the limited variant). */
const MESSAGE_CONTENT_FLAGS = (1 << 18) | ApplicationFlags.GATEWAY_MESSAGE_CONTENT_LIMITED;

/** Resolves `Bot <application_id>.<secret>` with one primary-key lookup. */
@Injectable()
export class BotTokenResolver implements CredentialResolver, OnModuleInit {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly resolvers: CredentialResolvers,
  ) {}

  onModuleInit(): void {
    this.resolvers.register('bot', this);
  }

  async resolve(credential: string): Promise<BotCaller | null> {
    const m = BOT_TOKEN.exec(credential);
    const id = m && parseSnowflake(m[1]);
    if (!m || !id) return null;
    const [row] = await BOT_USER.run(this.db, [id, sha256(m[2])]);
    if (!row) return null;
    const readsContent = (row.flags & MESSAGE_CONTENT_FLAGS) !== 0;
    // Cached under `a:<id>`: a change of the application's flags drops it (CredentialResolvers).
    return { kind: 'bot', userId: row.bot_user_id, applicationId: id, readsContent };
  }
}
