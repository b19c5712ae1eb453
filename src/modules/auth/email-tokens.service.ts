import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { randomToken, sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { EmailTokenEntity, type EmailTokenKind } from './email-token.entity';

/** Lifetimes of e-mailed tokens (ARCHITECTURE.md §6; authorize_ip matches its login ticket). */
export const EMAIL_TOKEN_TTL_MS: Record<EmailTokenKind, number> = {
  verify: 24 * 3_600_000,
  reset: 3_600_000,
  email_revert: 48 * 3_600_000,
  authorize_ip: 15 * 60_000,
};

const TOKEN_RE = /^[A-Za-z0-9_-]{43,128}$/;

/** Single-use e-mailed tokens: 32 random bytes, stored only as SHA-256. */
@Injectable()
export class EmailTokensService {
  constructor(
    @InjectRepository(EmailTokenEntity) private readonly tokens: Repository<EmailTokenEntity>,
    private readonly snowflakes: SnowflakeService,
  ) {}

  private repo(manager?: EntityManager): Repository<EmailTokenEntity> {
    return manager ? manager.getRepository(EmailTokenEntity) : this.tokens;
  }

  /** Issues a token; returns the plaintext (to be e-mailed, never stored). */
  async issue(
    userId: string,
    kind: EmailTokenKind,
    data: Record<string, string> | null,
    manager?: EntityManager,
  ): Promise<string> {
    const token = randomToken(32);
    await this.repo(manager).insert({
      id: this.snowflakes.next(),
      userId,
      kind,
      tokenHash: sha256(token),
      data,
      expiresAt: new Date(Date.now() + EMAIL_TOKEN_TTL_MS[kind]),
      usedAt: null,
    });
    return token;
  }

  /**
   * Marks a token used and returns it, in one statement (two concurrent redemptions cannot both
   * win). Unknown, used, expired or other-kind tokens → 400 INVALID_EMAIL_TOKEN.
   */
  async consume(
    token: string,
    kind: EmailTokenKind,
    manager?: EntityManager,
  ): Promise<{ userId: string; data: Record<string, string> | null }> {
    if (!TOKEN_RE.test(token)) throw new ApiError(ErrorCode.InvalidEmailToken);
    const res = await this.repo(manager)
      .createQueryBuilder()
      .update(EmailTokenEntity)
      .set({ usedAt: () => 'now()' })
      .where('token_hash = :hash AND kind = :kind AND used_at IS NULL AND expires_at > now()', {
        hash: sha256(token),
        kind,
      })
      .returning('*')
      .execute();
    const row = (res.raw as Array<{ user_id: string; data: Record<string, string> | null }>)[0];
    if (!row) throw new ApiError(ErrorCode.InvalidEmailToken);
    return { userId: String(row.user_id), data: row.data };
  }
}
