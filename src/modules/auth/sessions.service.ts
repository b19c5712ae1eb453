import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import type { CredentialResolver } from '../../common/auth/credential-resolvers';
import { CredentialResolvers } from '../../common/auth/credential-resolvers';
import type { Caller, SessionCaller } from '../../common/auth/caller';
import { constantTimeEqual, randomToken, sha256 } from '../../common/crypto/tokens';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import type { AuditContext } from '../audit/audit-context';
import { AuditLog } from '../audit/audit-log.service';
import type { AuthSessionResponse } from './auth.response';
import { clientInfoFromUserAgent } from './client-info';
import type { ReauthProof } from './mfa/dto/reauth.dto';
import { ReauthService } from './mfa/reauth.service';
import { toAuthSession } from './session.mapper';
import { SessionEntity } from './session.entity';
import { PreparedStatement } from '../../database/prepared';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../database/notifications';

const TOUCH_INTERVAL_MS = 60_000;
const BY_TOKEN_HASH = new PreparedStatement<{ id: string; user_id: string }>(
  'parley_session_by_token_hash',
  'SELECT id::text AS id, user_id::text AS user_id FROM auth_sessions WHERE token_hash = $1',
);
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export interface SessionOrigin {
  ip?: string | null;
  userAgent?: string;
}

/** Opaque session tokens: random, stored as SHA-256, looked up with one indexed query. */
@Injectable()
export class SessionsService implements CredentialResolver, OnModuleInit {
  private readonly logger = new Logger(SessionsService.name);
  // When this process last bumped a session's approx_last_used_at (bounded by the sweep below).
  private readonly lastTouch = new Map<string, number>();

  constructor(
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    private readonly snowflakes: SnowflakeService,
    private readonly resolvers: CredentialResolvers,
    private readonly reauth: ReauthService,
    private readonly notifications: DatabaseNotifications,
    private readonly audit: AuditLog,
  ) {}

  onModuleInit(): void {
    this.resolvers.register('session', this);
  }

  /**
   * Mints a session; returns the token (shown once). `proven: false` for a session whose holder
   * proved nothing themselves (a device handoff): it gets no re-authentication grace.
   */
  async create(
    userId: string,
    origin: SessionOrigin,
    manager?: EntityManager,
    { proven = true }: { proven?: boolean } = {},
  ): Promise<{ token: string; session: SessionEntity }> {
    const token = randomToken(32);
    const repo = manager ? manager.getRepository(SessionEntity) : this.sessions;
    const session = repo.create({
      id: this.snowflakes.next(),
      userId,
      tokenHash: sha256(token),
      clientInfo: clientInfoFromUserAgent(origin.userAgent),
      ip: origin.ip ?? null,
      approxLastUsedAt: new Date(),
      provenAt: proven ? new Date() : null,
    });
    await repo.insert(session);
    return { token, session };
  }

  async resolve(token: string): Promise<SessionCaller | null> {
    if (!TOKEN_RE.test(token)) return null;
    const [row] = await BY_TOKEN_HASH.run(this.sessions.manager.connection, [sha256(token)]);
    if (!row) return null;
    this.touch(row.id);
    return { kind: 'session', userId: row.user_id, sessionId: row.id };
  }

  used(caller: Caller): void {
    if (caller.kind === 'session') this.touch(caller.sessionId);
  }

  // Cheap "last used": at most one UPDATE per session per minute, never awaited by the request.
  private touch(sessionId: string): void {
    const now = Date.now();
    const last = this.lastTouch.get(sessionId);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouch.size > 100_000) this.lastTouch.clear();
    this.lastTouch.set(sessionId, now);
    this.sessions
      .query(
        `UPDATE auth_sessions SET approx_last_used_at = now()
          WHERE id = $1 AND (approx_last_used_at IS NULL OR approx_last_used_at < now() - interval '60 seconds')`,
        [sessionId],
      )
      .catch((err: Error) => this.logger.warn(`could not touch session: ${err.message}`));
  }

  /** Whether `token` is the token of this session (constant-time on the hashes). */
  async isTokenOf(sessionId: string, token: string): Promise<boolean> {
    if (!TOKEN_RE.test(token)) return false;
    const session = await this.sessions.findOneBy({ id: sessionId });
    return !!session && constantTimeEqual(session.tokenHash, sha256(token));
  }

  async listResponses(caller: SessionCaller): Promise<AuthSessionResponse[]> {
    const rows = await this.listForUser(caller.userId);
    return rows.map((s) => toAuthSession(s, caller.sessionId));
  }

  /** `POST /auth/logout`: ends the calling session, with its audit entry. */
  async logout(caller: SessionCaller, context: AuditContext): Promise<void> {
    await this.sessions.manager.transaction(async (m) => {
      await m.getRepository(SessionEntity).delete({ id: caller.sessionId });
      await this.audit.record(m, {
        ...context,
        action: 'auth.session.logout',
        targetType: 'session',
        targetId: caller.sessionId,
      });
    });
    this.revoked(`s:${caller.sessionId}`);
  }

  /** `POST /auth/sessions/logout`: the proof is checked before anything is revoked. */
  async logoutConfirmed(
    caller: SessionCaller,
    idHashes: string[],
    proof: ReauthProof,
    context: AuditContext,
  ): Promise<void> {
    await this.reauth.confirm(caller, proof, { allowRecent: true, purpose: 'end sessions' });
    await this.sessions.manager.transaction(async (m) => {
      const ended = await this.revokeByIdHashes(caller.userId, idHashes, m);
      await this.audit.record(m, {
        ...context,
        action: 'auth.sessions.logout',
        targetType: 'user',
        targetId: caller.userId,
        metadata: { requested: idHashes.length, ended },
      });
    });
  }

  listForUser(userId: string): Promise<SessionEntity[]> {
    return this.sessions.find({ where: { userId }, order: { id: 'DESC' }, take: 200 });
  }

  // Every revocation below is also announced to this process's caches at once (the database
  // trigger tells every instance, this one included, a moment later).
  private revoked(tag: string): void {
    this.notifications.publishLocal(CHANGES_CHANNEL, tag);
  }

  async revoke(sessionId: string, manager?: EntityManager): Promise<void> {
    const repo = manager ? manager.getRepository(SessionEntity) : this.sessions;
    await repo.delete({ id: sessionId });
    this.revoked(`s:${sessionId}`);
  }

  /** Ends the session a token belongs to (if it still exists). */
  async revokeByToken(token: string, manager?: EntityManager): Promise<void> {
    const repo = manager ? manager.getRepository(SessionEntity) : this.sessions;
    const res = await repo
      .createQueryBuilder()
      .delete()
      .where('token_hash = :hash', { hash: sha256(token) })
      .returning('id')
      .execute();
    for (const row of res.raw as Array<{ id: string }>) this.revoked(`s:${row.id}`);
  }

  /** Revokes the user's sessions whose id_hash (base64url SHA-256 of the token) is listed. */
  async revokeByIdHashes(
    userId: string,
    idHashes: string[],
    manager?: EntityManager,
  ): Promise<number> {
    const hashes = idHashes.map((h) => Buffer.from(h, 'base64url')).filter((b) => b.length === 32);
    if (hashes.length === 0) return 0;
    const repo = manager ? manager.getRepository(SessionEntity) : this.sessions;
    const res = await repo.delete({ userId, tokenHash: In(hashes) });
    this.revoked(`u:${userId}`);
    return res.affected ?? 0;
  }

  /** Ends every session of a user (optionally keeping one). */
  async revokeAllForUser(
    userId: string,
    exceptSessionId?: string,
    manager?: EntityManager,
  ): Promise<void> {
    const repo = manager ? manager.getRepository(SessionEntity) : this.sessions;
    const qb = repo.createQueryBuilder().delete().where('user_id = :userId', { userId });
    if (exceptSessionId) qb.andWhere('id <> :id', { id: exceptSessionId });
    await qb.execute();
    this.revoked(`u:${userId}`);
  }
}
