import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { AdminCaller, Caller } from '../../../common/auth/caller';
import {
  CredentialResolvers,
  type CredentialResolver,
} from '../../../common/auth/credential-resolvers';
import { randomToken, sha256 } from '../../../common/crypto/tokens';
import { ApiError, fieldError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import { PreparedStatement } from '../../../database/prepared';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../../database/notifications';
import { inTransaction } from '../../../database/transaction';
import type { AuditContext } from '../../audit/audit-context';
import { AuditLog } from '../../audit/audit-log.service';
import { effectiveAcls, isKnownAcl, ungrantableAcls } from '../acls';
import type { CreateAdminApiKeyRequest } from './admin-api-key.dto';
import { AdminApiKeyEntity } from './admin-api-key.entity';
import { toCreatedAdminApiKey, toListAdminApiKey } from './admin-api-key.mapper';
import type {
  CreateAdminApiKeyResponse,
  DeleteApiKeyResponse,
  ListAdminApiKeyResponse,
} from './admin-api-key.response';

const KEY = /^adm_(\d{1,20})_([A-Za-z0-9_-]{43})$/;
const TOUCH_INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;
const KEY_BY_ID = new PreparedStatement<{
  user_id: string;
  acls: string[];
  owner_acls: string[];
  expires_at: Date | null;
}>(
  'parley_admin_key_by_id',
  `SELECT k.user_id::text AS user_id, k.acls, u.acls AS owner_acls, k.expires_at
     FROM admin_api_keys k JOIN users u ON u.id = k.user_id
    WHERE k.id = $1 AND k.token_hash = $2 AND (k.expires_at IS NULL OR k.expires_at > now())`,
);

export interface MintKeyOptions {
  name: string;
  acls: string[];
  expiresInDays?: number;
  /** The latest the key may expire (its creator's expiry); null or absent: no bound. */
  notAfter?: Date | null;
}

/**
 * Admin API keys: minting (shown once, stored as SHA-256), listing, revocation, and the `admin`
 * credential resolver (one primary-key lookup; cached callers are dropped on every instance when
 * a key or its owner changes, through the `k:`/`u:` change notifications).
 */
@Injectable()
export class AdminApiKeysService implements CredentialResolver, OnModuleInit {
  private readonly logger = new Logger(AdminApiKeysService.name);
  private readonly lastTouch = new Map<string, number>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly snowflakes: SnowflakeService,
    private readonly resolvers: CredentialResolvers,
    private readonly notifications: DatabaseNotifications,
    private readonly audit: AuditLog,
  ) {}

  onModuleInit(): void {
    this.resolvers.register('admin', this);
  }

  async resolve(credential: string): Promise<AdminCaller | null> {
    const m = KEY.exec(credential);
    const keyId = m && parseSnowflake(m[1]);
    if (!m || !keyId) return null;
    const [row] = await KEY_BY_ID.run(this.db, [keyId, sha256(credential)]);
    if (!row) return null;
    this.touch(keyId);
    return {
      kind: 'admin',
      keyId,
      userId: row.user_id,
      acls: effectiveAcls(row.acls, row.owner_acls),
      expiresAt: row.expires_at,
    };
  }

  used(caller: Caller): void {
    if (caller.kind === 'admin') this.touch(caller.keyId);
  }

  /** `POST /admin/api-keys`: a new key with at most the calling key's ACLs. */
  async create(
    caller: AdminCaller,
    dto: CreateAdminApiKeyRequest,
    audit: AuditContext,
  ): Promise<CreateAdminApiKeyResponse> {
    const unknown = dto.acls.flatMap((acl, i) =>
      isKnownAcl(acl) ? [] : [fieldError(`acls.${i}`, FieldErrorCode.InvalidAcl)],
    );
    if (unknown.length > 0) throw ApiError.form(unknown);
    const missing = ungrantableAcls(caller.acls, dto.acls);
    if (missing.length > 0) {
      throw new ApiError(
        ErrorCode.MissingAcl,
        'A key can only grant ACLs that the calling key holds.',
        { missing_acls: missing },
      );
    }
    const { key, secret } = await this.db.transaction(async (manager) => {
      const minted = await this.mint(manager, caller.userId, {
        name: dto.name,
        acls: dto.acls,
        expiresInDays: dto.expires_in_days,
        // A key never outlives the key that made it.
        notAfter: caller.expiresAt,
      });
      await this.audit.record(manager, {
        actor: audit.actor,
        action: 'admin_api_key.create',
        targetType: 'admin_api_key',
        targetId: minted.key.id,
        reason: audit.reason,
        ip: audit.ip,
        metadata: { name: dto.name, acls: minted.key.acls, expires_at: minted.key.expiresAt },
      });
      return minted;
    });
    return toCreatedAdminApiKey(key, secret);
  }

  /**
   * Stores a new key for `userId` (no ACL check: callers decide what may be granted — the route
   * above, or the operator's bootstrap command). Returns the key material once.
   */
  async mint(
    manager: EntityManager | undefined,
    userId: string,
    options: MintKeyOptions,
  ): Promise<{ key: AdminApiKeyEntity; secret: string }> {
    return inTransaction(this.db, manager, async (m) => {
      const id = this.snowflakes.next();
      const secret = `adm_${id}_${randomToken(32)}`;
      const now = new Date();
      const key = m.create(AdminApiKeyEntity, {
        id,
        userId,
        name: options.name,
        tokenHash: sha256(secret),
        acls: [...new Set(options.acls)],
        createdAt: now,
        expiresAt: boundedExpiry(now, options.expiresInDays, options.notAfter ?? null),
        lastUsedAt: null,
      });
      await m.insert(AdminApiKeyEntity, key);
      return { key, secret };
    });
  }

  /**
   * `GET /admin/api-keys`: the keys of the calling key's owner that the calling key could have
   * made — those whose ACLs it holds all of (never the key material). A narrow key does not
   * learn of wider ones.
   */
  async list(caller: AdminCaller): Promise<ListAdminApiKeyResponse[]> {
    const keys = await this.db.getRepository(AdminApiKeyEntity).find({
      where: { userId: caller.userId },
      order: { id: 'DESC' },
      take: 200,
    });
    return keys
      .filter((k) => ungrantableAcls(caller.acls, k.acls).length === 0)
      .map(toListAdminApiKey);
  }

  /** `DELETE /admin/api-keys/{keyId}`: irreversible; refused at once on every instance. */
  async delete(
    caller: AdminCaller,
    keyId: string,
    audit: AuditContext,
  ): Promise<DeleteApiKeyResponse> {
    await this.db.transaction(async (manager) => {
      const [target] = await manager.query<Array<{ acls: string[] }>>(
        'SELECT acls FROM admin_api_keys WHERE id = $1 AND user_id = $2 FOR UPDATE',
        [keyId, caller.userId],
      );
      if (!target) throw new ApiError(ErrorCode.AdminApiKeyNotFound);
      // A key may delete only keys it could have made: a narrow key cannot revoke a wider one.
      const missing = ungrantableAcls(caller.acls, target.acls);
      if (missing.length > 0) {
        throw new ApiError(
          ErrorCode.MissingAcl,
          'A key can only delete keys whose ACLs it holds.',
          { missing_acls: missing },
        );
      }
      await manager.query('DELETE FROM admin_api_keys WHERE id = $1', [keyId]);
      await this.audit.record(manager, {
        actor: audit.actor,
        action: 'admin_api_key.delete',
        targetType: 'admin_api_key',
        targetId: keyId,
        reason: audit.reason,
        ip: audit.ip,
      });
    });
    // The trigger's notification reaches every instance; this one drops the key before answering.
    this.notifications.publishLocal(CHANGES_CHANNEL, `k:${keyId}`);
    return { success: true };
  }

  // Cheap "last used": at most one UPDATE per key per minute, never awaited by the request.
  private touch(keyId: string): void {
    const now = Date.now();
    const last = this.lastTouch.get(keyId);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouch.size > 10_000) this.lastTouch.clear();
    this.lastTouch.set(keyId, now);
    this.db
      .query(
        `UPDATE admin_api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
        [keyId],
      )
      .catch((err: Error) => this.logger.warn(`could not touch admin key: ${err.message}`));
  }
}

/**
 * When a new key expires: after `days` when given, never otherwise — and in any case no later
 * than `notAfter` (the creating key's expiry).
 */
function boundedExpiry(now: Date, days: number | undefined, notAfter: Date | null): Date | null {
  const requested = days ? new Date(now.getTime() + days * DAY_MS) : null;
  if (!notAfter) return requested;
  return requested && requested < notAfter ? requested : new Date(notAfter);
}
