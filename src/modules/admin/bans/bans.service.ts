import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThan, type EntityManager, type EntityTarget } from 'typeorm';
import type { AdminCaller } from '../../../common/auth/caller';
import { ApiError, fieldError, type FieldError } from '../../../common/errors/api-error';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { SnowflakeService } from '../../../common/snowflake/snowflake.service';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../../database/notifications';
import type { AuditContext } from '../../audit/audit-context';
import { AuditLog } from '../../audit/audit-log.service';
import { parseBanEmail, parseIpBan, parsePhone, type IpBanValue } from '../../bans/ban-values';
import { EmailBanEntity } from '../../bans/email-ban.entity';
import { BANS_CHANNEL, IP_BANS_CHANGED } from '../../bans/ip-ban-gate';
import { IpBanEntity } from '../../bans/ip-ban.entity';
import { PhoneBanEntity } from '../../bans/phone-ban.entity';
import type { BanEmailRequest, BanIpRequest, BanPhoneRequest, ListBansRequest } from './ban.dto';
import { toEmailBan, toIpBan, toPhoneBan } from './ban.mapper';
import type {
  BanCheckResponseSchema,
  ListEmailBansResponseSchema,
  ListIpBansResponseSchema,
  ListPhoneBansResponseSchema,
} from './ban.response';
import { ReverseDns } from './reverse-dns';

const DEFAULT_PAGE = 50;

/** E-mail and phone bans share their shape: one text value per row. */
interface TextBanKind {
  kind: 'email' | 'phone';
  table: 'email_bans' | 'phone_bans';
  column: 'email' | 'phone';
}
const EMAIL: TextBanKind = { kind: 'email', table: 'email_bans', column: 'email' };
const PHONE: TextBanKind = { kind: 'phone', table: 'phone_bans', column: 'phone' };

/**
 * The values one ban request names: `single` (`email`) or `list` (`emails`), exactly one of them,
 * each parsed (normalized) or reported at its path (`emails.2`); duplicates collapse.
 */
function valuesOf<T>(
  body: { single?: string; list?: unknown[] },
  paths: { single: string; list: string },
  parse: (value: string) => T | null,
  invalid: FieldErrorCode,
  key: (value: T) => string,
): T[] {
  const given =
    body.single !== undefined ? (body.list !== undefined ? null : [body.single]) : body.list;
  if (!given || given.length === 0) {
    throw ApiError.field(
      'root',
      FieldErrorCode.BanValueRequired,
      `Give either \`${paths.single}\` or a non-empty \`${paths.list}\`, not both.`,
    );
  }
  const errors: FieldError[] = [];
  const out = new Map<string, T>();
  given.forEach((raw, i) => {
    const path = body.single !== undefined ? paths.single : `${paths.list}.${i}`;
    if (typeof raw !== 'string') {
      errors.push(fieldError(path, FieldErrorCode.BaseTypeString));
      return;
    }
    const parsed = parse(raw);
    if (parsed === null) errors.push(fieldError(path, invalid));
    else out.set(key(parsed), parsed);
  });
  if (errors.length > 0) throw ApiError.form(errors);
  return [...out.values()];
}

const same = (v: string) => v;

/**
 * The admin side of bans (`/admin/bans/{email,ip,phone}/…`): add, check, list, remove. Adding
 * and removing are idempotent; each given value gets an audit entry (`ban.<kind>.add|remove`)
 * in the transaction that changes the list. Enforcement lives in the bans module (BanChecks,
 * IpBanGate).
 */
@Injectable()
export class AdminBansService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly snowflakes: SnowflakeService,
    private readonly audit: AuditLog,
    private readonly notifications: DatabaseNotifications,
    private readonly reverseDns: ReverseDns,
  ) {}

  // ---- values --------------------------------------------------------------------------------

  private emails(dto: BanEmailRequest): string[] {
    return valuesOf(
      { single: dto.email, list: dto.emails },
      { single: 'email', list: 'emails' },
      parseBanEmail,
      FieldErrorCode.InvalidEmail,
      same,
    );
  }

  private phones(dto: BanPhoneRequest): string[] {
    return valuesOf(
      { single: dto.phone, list: dto.phones },
      { single: 'phone', list: 'phones' },
      parsePhone,
      FieldErrorCode.InvalidPhone,
      same,
    );
  }

  /**
   * The IP values of a request, their `cidr` as PostgreSQL writes it (it prints some IPv6 forms
   * differently from ipaddr.js), so they compare equal to what the database returns.
   */
  private async ips(dto: BanIpRequest): Promise<IpBanValue[]> {
    const values = valuesOf(
      { single: dto.ip, list: dto.ips },
      { single: 'ip', list: 'ips' },
      parseIpBan,
      FieldErrorCode.InvalidIp,
      (v) => v.cidr,
    );
    const rows = await this.db.query<Array<{ cidr: string }>>(
      `SELECT c::text AS cidr FROM unnest($1::cidr[]) WITH ORDINALITY AS t(c, i) ORDER BY i`,
      [values.map((v) => v.cidr)],
    );
    return values.map((v, i) => ({ ...v, cidr: rows[i].cidr }));
  }

  // ---- e-mail and phone ----------------------------------------------------------------------

  addEmails(caller: AdminCaller, dto: BanEmailRequest, audit: AuditContext): Promise<void> {
    return this.addText(EMAIL, caller, this.emails(dto), audit);
  }

  removeEmails(dto: BanEmailRequest, audit: AuditContext): Promise<void> {
    return this.removeText(EMAIL, this.emails(dto), audit);
  }

  checkEmails(dto: BanEmailRequest): Promise<BanCheckResponseSchema> {
    return this.checkText(EMAIL, this.emails(dto));
  }

  async listEmails(dto: ListBansRequest): Promise<ListEmailBansResponseSchema> {
    const page = await this.page(EmailBanEntity, dto);
    return { ...page, bans: page.bans.map(toEmailBan) };
  }

  addPhones(caller: AdminCaller, dto: BanPhoneRequest, audit: AuditContext): Promise<void> {
    return this.addText(PHONE, caller, this.phones(dto), audit);
  }

  removePhones(dto: BanPhoneRequest, audit: AuditContext): Promise<void> {
    return this.removeText(PHONE, this.phones(dto), audit);
  }

  checkPhones(dto: BanPhoneRequest): Promise<BanCheckResponseSchema> {
    return this.checkText(PHONE, this.phones(dto));
  }

  async listPhones(dto: ListBansRequest): Promise<ListPhoneBansResponseSchema> {
    const page = await this.page(PhoneBanEntity, dto);
    return { ...page, bans: page.bans.map(toPhoneBan) };
  }

  private async addText(
    k: TextBanKind,
    caller: AdminCaller,
    values: string[],
    audit: AuditContext,
  ): Promise<void> {
    const ids = values.map(() => this.snowflakes.next());
    await this.db.transaction(async (m) => {
      const added = await m.query<Array<{ value: string }>>(
        `INSERT INTO ${k.table} (id, ${k.column}, reason, created_by_key_id, created_by_user_id)
         SELECT v.id, v.value, $3, $4, $5 FROM unnest($1::bigint[], $2::text[]) AS v(id, value)
         ON CONFLICT (${k.column}) DO NOTHING
         RETURNING ${k.column} AS value`,
        [ids, values, audit.reason, caller.keyId, caller.userId],
      );
      const fresh = new Set(added.map((r) => r.value));
      await this.recordEach(m, audit, `ban.${k.kind}.add`, k.kind, values, (v) => ({
        already_banned: !fresh.has(v),
      }));
    });
  }

  private async removeText(k: TextBanKind, values: string[], audit: AuditContext): Promise<void> {
    await this.db.transaction(async (m) => {
      const removed = await m.query<[Array<{ value: string }>, number]>(
        `DELETE FROM ${k.table} WHERE ${k.column} = ANY($1::text[]) RETURNING ${k.column} AS value`,
        [values],
      );
      const gone = new Set(removed[0].map((r) => r.value));
      await this.recordEach(m, audit, `ban.${k.kind}.remove`, k.kind, values, (v) => ({
        was_banned: gone.has(v),
      }));
    });
  }

  private async checkText(k: TextBanKind, values: string[]): Promise<BanCheckResponseSchema> {
    const rows = await this.db.query<Array<{ value: string }>>(
      `SELECT ${k.column} AS value FROM ${k.table} WHERE ${k.column} = ANY($1::text[])`,
      [values],
    );
    const banned = new Set(rows.map((r) => r.value));
    const results = values.map((value) => ({ value, banned: banned.has(value) }));
    return { banned: results.some((r) => r.banned), results };
  }

  // ---- IP ------------------------------------------------------------------------------------

  /**
   * Bans addresses and ranges. Single addresses get their reverse DNS name first (bounded, see
   * ReverseDns). `retroactive` also ends every session last used from inside a given range. This
   * instance drops its cached decisions before answering; the trigger tells every other one.
   */
  async addIps(caller: AdminCaller, dto: BanIpRequest, audit: AuditContext): Promise<void> {
    const values = await this.ips(dto);
    const singles = values.filter((v) => v.address !== null);
    const names = await this.reverseDns.lookupAll(singles.map((v) => v.address!));
    const nameOf = new Map(singles.map((v, i) => [v.cidr, names[i]]));
    const cidrs = values.map((v) => v.cidr);
    const ids = values.map(() => this.snowflakes.next());
    const endedSessions = await this.db.transaction(async (m) => {
      const added = await m.query<Array<{ range: string }>>(
        `INSERT INTO ip_bans (id, range, reverse_dns, reason, created_by_key_id, created_by_user_id)
         SELECT v.id, v.range, v.name, $4, $5, $6
           FROM unnest($1::bigint[], $2::cidr[], $3::text[]) AS v(id, range, name)
         ON CONFLICT (range) DO NOTHING
         RETURNING range::text AS range`,
        [
          ids,
          cidrs,
          cidrs.map((c) => nameOf.get(c) ?? null),
          audit.reason,
          caller.keyId,
          caller.userId,
        ],
      );
      const fresh = new Set(added.map((r) => r.range));
      const ended = new Map<string, string[]>();
      if (dto.retroactive === true) {
        const [rows] = await m.query<[Array<{ id: string; range: string }>, number]>(
          `DELETE FROM auth_sessions s USING unnest($1::cidr[]) AS r(range)
            WHERE s.ip <<= r.range
           RETURNING s.id::text AS id, r.range::text AS range`,
          [cidrs],
        );
        for (const row of rows) ended.set(row.range, [...(ended.get(row.range) ?? []), row.id]);
      }
      await this.recordEach(m, audit, 'ban.ip.add', 'ip', cidrs, (c) => ({
        already_banned: !fresh.has(c),
        reverse_dns: nameOf.get(c) ?? null,
        retroactive: dto.retroactive === true,
        ...(dto.retroactive === true ? { sessions_ended: ended.get(c)?.length ?? 0 } : {}),
      }));
      return [...ended.values()].flat();
    });
    this.notifications.publishLocal(BANS_CHANNEL, IP_BANS_CHANGED);
    for (const id of endedSessions) this.notifications.publishLocal(CHANGES_CHANNEL, `s:${id}`);
  }

  /** Lifts bans on exactly these ranges (a wider ban covering an address stays). */
  async removeIps(dto: BanIpRequest, audit: AuditContext): Promise<void> {
    const cidrs = (await this.ips(dto)).map((v) => v.cidr);
    await this.db.transaction(async (m) => {
      const [removed] = await m.query<[Array<{ range: string }>, number]>(
        'DELETE FROM ip_bans WHERE range = ANY($1::cidr[]) RETURNING range::text AS range',
        [cidrs],
      );
      const gone = new Set(removed.map((r) => r.range));
      await this.recordEach(m, audit, 'ban.ip.remove', 'ip', cidrs, (c) => ({
        was_banned: gone.has(c),
      }));
    });
    this.notifications.publishLocal(BANS_CHANNEL, IP_BANS_CHANGED);
  }

  /**
   * Whether a ban covers each address or range (a range is banned when a ban contains all of
   * it); `range` is the narrowest such ban.
   */
  async checkIps(dto: BanIpRequest): Promise<BanCheckResponseSchema> {
    const values = await this.ips(dto);
    const rows = await this.db.query<Array<{ i: number; range: string | null }>>(
      `SELECT v.i::int AS i,
              (SELECT b.range::text FROM ip_bans b WHERE b.range >>= v.r
                ORDER BY masklen(b.range) DESC LIMIT 1) AS range
         FROM unnest($1::cidr[]) WITH ORDINALITY AS v(r, i)
        ORDER BY v.i`,
      [values.map((v) => v.cidr)],
    );
    const results = values.map((v, idx) => {
      const range = rows[idx]?.range ?? null;
      return { value: v.address ?? v.cidr, banned: range !== null, range };
    });
    return { banned: results.some((r) => r.banned), results };
  }

  async listIps(dto: ListBansRequest): Promise<ListIpBansResponseSchema> {
    const page = await this.page(IpBanEntity, dto);
    return { ...page, bans: page.bans.map(toIpBan) };
  }

  // ---- shared --------------------------------------------------------------------------------

  /** Newest first, keyed on the snowflake id (the cursor is the last id of the page). */
  private async page<E extends { id: string }>(
    entity: EntityTarget<E>,
    dto: ListBansRequest,
  ): Promise<{ bans: E[]; total: number; next_cursor: string | null }> {
    const limit = dto.limit ?? DEFAULT_PAGE;
    const repo = this.db.getRepository(entity);
    const [rows, total] = await Promise.all([
      repo.find({
        where: (dto.cursor ? { id: LessThan(dto.cursor) } : {}) as never,
        order: { id: 'DESC' } as never,
        take: limit + 1,
      }),
      repo.count(),
    ]);
    const bans = rows.slice(0, limit);
    return {
      bans,
      total,
      next_cursor: rows.length > limit ? bans[bans.length - 1].id : null,
    };
  }

  private async recordEach(
    manager: EntityManager,
    audit: AuditContext,
    action: string,
    targetType: string,
    values: string[],
    metadata: (value: string) => Record<string, unknown>,
  ): Promise<void> {
    for (const value of values) {
      await this.audit.record(manager, {
        actor: audit.actor,
        action,
        targetType,
        targetId: value,
        reason: audit.reason,
        ip: audit.ip,
        metadata: metadata(value),
      });
    }
  }
}
