import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { SessionCaller } from '../../common/auth/caller';
import { decryptSecret, encryptSecret, randomString, sha256 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { AppConfig } from '../../config/app.config';
import type { HandoffInitiateResponse, HandoffStatusResponse } from './auth.response';
import type { HandoffCompleteDto } from './dto/handoff.dto';
import { HandoffEntity } from './handoff.entity';
import { LoginCompletion } from './login-completion.service';
import { SessionOrigin, SessionsService } from './sessions.service';

export const HANDOFF_TTL_MS = 5 * 60_000;
/** No 0/O, 1/I/L: codes are read off one screen and typed into another. */
export const HANDOFF_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_RE = new RegExp(`^[${HANDOFF_ALPHABET}]{8}$`);

/** `abcd-efgh`, ` ABCD EFGH ` → `ABCDEFGH`; null when it cannot be a code. */
export function normalizeHandoffCode(raw: string): string | null {
  const code = raw.toUpperCase().replace(/[\s-]/g, '');
  return CODE_RE.test(code) ? code : null;
}

/**
 * Device handoff (ARCHITECTURE.md §6): `pending → completed → expired` (expired once the completed
 * result has been read, or at TTL).
 */
@Injectable()
export class HandoffService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly snowflakes: SnowflakeService,
    private readonly sessions: SessionsService,
    private readonly logins: LoginCompletion,
  ) {}

  async initiate(origin: SessionOrigin): Promise<HandoffInitiateResponse> {
    const code = randomString(8, HANDOFF_ALPHABET);
    const expiresAt = new Date(Date.now() + HANDOFF_TTL_MS);
    await this.db.getRepository(HandoffEntity).insert({
      id: this.snowflakes.next(),
      codeHash: sha256(code),
      expiresAt,
      ip: origin.ip ?? null,
      userAgent: origin.userAgent?.slice(0, 512) ?? null,
    });
    return { code: `${code.slice(0, 4)}-${code.slice(4)}`, expires_at: expiresAt.toISOString() };
  }

  /** A logged-in device vouches for itself (its own token and user id) and mints a session for the code. */
  async complete(caller: SessionCaller, dto: HandoffCompleteDto): Promise<void> {
    const code = normalizeHandoffCode(dto.code);
    if (!code) throw new ApiError(ErrorCode.InvalidHandoffCode);
    if (
      dto.user_id !== caller.userId ||
      !(await this.sessions.isTokenOf(caller.sessionId, dto.token))
    ) {
      throw new ApiError(
        ErrorCode.AccessDenied,
        'token and user_id must be those of the calling session.',
      );
    }
    await this.db.transaction(async (m) => {
      const repo = m.getRepository(HandoffEntity);
      const row = await repo
        .createQueryBuilder('h')
        .where('h.code_hash = :hash', { hash: sha256(code) })
        .setLock('pessimistic_write')
        .getOne();
      if (!row || row.completedAt) throw new ApiError(ErrorCode.InvalidHandoffCode);
      if (row.expiresAt.getTime() <= Date.now()) throw new ApiError(ErrorCode.HandoffCodeExpired);
      const { token } = await this.logins.complete(
        caller.userId,
        { ip: row.ip, userAgent: row.userAgent ?? undefined },
        { method: 'handoff' },
        m,
      );
      await repo.update(row.id, {
        userId: caller.userId,
        sealedToken: encryptSecret(this.config.secretKey, token),
        completedAt: new Date(),
      });
    });
  }

  status(rawCode: string): Promise<HandoffStatusResponse> {
    const code = normalizeHandoffCode(rawCode);
    if (!code) throw new ApiError(ErrorCode.InvalidHandoffCode);
    return this.db.transaction(async (m) => {
      const repo = m.getRepository(HandoffEntity);
      const row = await repo
        .createQueryBuilder('h')
        .where('h.code_hash = :hash', { hash: sha256(code) })
        .setLock('pessimistic_write')
        .getOne();
      if (!row) throw new ApiError(ErrorCode.InvalidHandoffCode);
      const expired = row.expiresAt.getTime() <= Date.now();
      if (row.readAt || expired) {
        // A result nobody read before the TTL is wiped, and its session ended: nobody holds it.
        if (row.sealedToken) await this.abandon(row, m);
        return { status: 'expired' };
      }
      if (!row.completedAt || !row.sealedToken || !row.userId) return { status: 'pending' };
      const token = decryptSecret(this.config.secretKey, row.sealedToken);
      await repo.update(row.id, { sealedToken: null, readAt: new Date() });
      return { status: 'completed', token, user_id: row.userId };
    });
  }

  /**
   * Ends the sessions minted for handoffs that expired unread, wipes their sealed tokens and drops
   * rows older than a day. Run by the sweeper.
   */
  async sweep(): Promise<number> {
    return this.db.transaction(async (m) => {
      const abandoned = await m
        .getRepository(HandoffEntity)
        .createQueryBuilder('h')
        .where('h.expires_at <= now() AND h.sealed_token IS NOT NULL')
        .setLock('pessimistic_write')
        .getMany();
      for (const row of abandoned) await this.abandon(row, m);
      const deleted = await m.query<[unknown[], number]>(
        "DELETE FROM auth_handoffs WHERE expires_at < now() - interval '1 day'",
      );
      return abandoned.length + (deleted[1] ?? 0);
    });
  }

  private async abandon(row: HandoffEntity, m: EntityManager): Promise<void> {
    const token = decryptSecret(this.config.secretKey, row.sealedToken!);
    await this.sessions.revokeByToken(token, m);
    await m.getRepository(HandoffEntity).update(row.id, { sealedToken: null });
  }
}
