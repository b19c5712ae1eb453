import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import type { Caller } from '../../common/auth/caller';
import { ApiError, fieldError, type FieldError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { GuildAccessService } from '../guilds/guild-access.service';
import { ApplicationsService } from '../oauth2/applications.service';
import { ApplicationCommandEntity } from './application-command.entity';
import { toApplicationCommand } from './application-command.mapper';
import type { ApplicationCommandResponse } from './application-command.response';
import { checkCommand } from './command-schema';
import type { CommandFields } from './command-types';

/** Discord's limits per application and scope (global, or one guild), by command type. */
export const MAX_COMMANDS_BY_TYPE: Record<number, number> = { 1: 100, 2: 5, 3: 5 };
/** Discord's 200 command creates a day, per application and scope. */
export const MAX_DAILY_CREATES = 200;

/** Whose commands a route writes: an application's global ones (`guildId` null) or one guild's. */
export interface CommandScope {
  applicationId: string;
  guildId: string | null;
}

type Json = Record<string, unknown>;

/**
 * The one writer of `application_commands`: Discord's Create (an upsert on name and type), Edit,
 * Delete and Bulk Overwrite, globally or in a guild, with Discord's rules (command-schema.ts) and
 * limits. The caller is the application's bot or its owner's Bearer token; a guild's commands
 * need the bot in the guild. Also what invoking reads: a command by id as a guild sees it, and
 * the commands visible in a guild.
 */
@Injectable()
export class ApplicationCommandsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly apps: ApplicationsService,
    private readonly access: GuildAccessService,
    private readonly snowflakes: SnowflakeService,
  ) {}

  async list(caller: Caller, scope: CommandScope): Promise<ApplicationCommandResponse[]> {
    await this.authorize(caller, scope);
    const rows = await this.db.getRepository(ApplicationCommandEntity).find({
      where: { applicationId: scope.applicationId, guildId: scope.guildId ?? IsNull() },
      order: { id: 'ASC' },
    });
    return rows.map(toApplicationCommand);
  }

  async get(caller: Caller, scope: CommandScope, id: string): Promise<ApplicationCommandResponse> {
    await this.authorize(caller, scope);
    return toApplicationCommand(await this.find(this.db.manager, scope, id));
  }

  /** Discord's Create: a new command (created: true), or the one with that name and type updated. */
  async create(
    caller: Caller,
    scope: CommandScope,
    body: Json,
  ): Promise<{ created: boolean; command: ApplicationCommandResponse }> {
    await this.authorize(caller, scope);
    const fields = valid(checkCommand(body));
    return this.db.transaction(async (m) => {
      const existing = await this.lockScope(m, scope);
      const same = existing.find((c) => c.type === fields.type && c.name === fields.name);
      if (same)
        return { created: false, command: toApplicationCommand(await this.save(m, same, fields)) };
      requireWithinLimits([...existing, fields]);
      await this.countCreates(m, scope, 1);
      const row = await this.save(m, this.newRow(scope), fields);
      return { created: true, command: toApplicationCommand(row) };
    });
  }

  async update(
    caller: Caller,
    scope: CommandScope,
    id: string,
    body: Json,
  ): Promise<ApplicationCommandResponse> {
    await this.authorize(caller, scope);
    return this.db.transaction(async (m) => {
      const existing = await this.lockScope(m, scope);
      const row = existing.find((c) => c.id === id);
      if (!row) throw new ApiError(ErrorCode.UnknownApplicationCommand);
      // The type stays (Discord's Edit has none).
      const fields = valid(checkCommand({ ...body, type: row.type }, '', row));
      if (existing.some((c) => c.id !== id && c.type === fields.type && c.name === fields.name)) {
        throw ApiError.field('name', FieldErrorCode.ApplicationCommandsDuplicateName);
      }
      return toApplicationCommand(await this.save(m, row, fields));
    });
  }

  async delete(caller: Caller, scope: CommandScope, id: string): Promise<void> {
    await this.authorize(caller, scope);
    const { affected } = await this.db.getRepository(ApplicationCommandEntity).delete({
      id,
      applicationId: scope.applicationId,
      guildId: scope.guildId ?? IsNull(),
    });
    if (!affected) throw new ApiError(ErrorCode.UnknownApplicationCommand);
  }

  /**
   * Discord's Bulk Overwrite: the scope's commands become `body`. A command whose name and type
   * were already there keeps its id (and its version when nothing changed); the others are
   * created, and the ones not listed deleted.
   */
  async overwrite(
    caller: Caller,
    scope: CommandScope,
    body: unknown,
  ): Promise<ApplicationCommandResponse[]> {
    await this.authorize(caller, scope);
    if (!Array.isArray(body)) throw ApiError.field('root', FieldErrorCode.BaseTypeArray);
    const errors: FieldError[] = [];
    const wanted = body.map((item: unknown, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        errors.push(fieldError(String(i), FieldErrorCode.BaseTypeObject));
        return null;
      }
      const checked = checkCommand(item as Json, String(i));
      errors.push(...checked.errors);
      return checked.fields;
    });
    const keys = new Set<string>();
    wanted.forEach((f, i) => {
      if (!f) return;
      const key = `${f.type}:${f.name}`;
      if (keys.has(key)) {
        errors.push(fieldError(`${i}.name`, FieldErrorCode.ApplicationCommandsDuplicateName));
      }
      keys.add(key);
    });
    if (errors.length > 0) throw ApiError.form(errors);
    const fields = wanted as CommandFields[];
    requireWithinLimits(fields);
    return this.db.transaction(async (m) => {
      const existing = await this.lockScope(m, scope);
      const byKey = new Map(existing.map((c) => [`${c.type}:${c.name}`, c]));
      const plan = fields.map((f) => ({ f, old: byKey.get(`${f.type}:${f.name}`) }));
      const kept = new Set(plan.map((p) => p.old?.id));
      const gone = existing.filter((c) => !kept.has(c.id)).map((c) => c.id);
      if (gone.length > 0) await m.delete(ApplicationCommandEntity, gone);
      await this.countCreates(m, scope, plan.filter((p) => !p.old).length);
      const rows: ApplicationCommandEntity[] = [];
      for (const { f, old } of plan) {
        rows.push(await (old ? this.save(m, old, f, true) : this.save(m, this.newRow(scope), f)));
      }
      return rows.map(toApplicationCommand);
    });
  }

  /** A command invocable in `guildId`: the application's global one, or that guild's. */
  async findForGuild(
    applicationId: string,
    commandId: string,
    guildId: string,
  ): Promise<ApplicationCommandResponse | null> {
    const row = await this.db.getRepository(ApplicationCommandEntity).findOne({
      where: [
        { id: commandId, applicationId, guildId: IsNull() },
        { id: commandId, applicationId, guildId },
      ],
    });
    return row ? toApplicationCommand(row) : null;
  }

  /** The application's commands visible in a guild (global ones and the guild's), oldest first. */
  async listForGuild(
    applicationId: string,
    guildId: string,
  ): Promise<ApplicationCommandResponse[]> {
    const rows = await this.db.getRepository(ApplicationCommandEntity).find({
      where: [
        { applicationId, guildId: IsNull() },
        { applicationId, guildId },
      ],
      order: { id: 'ASC' },
    });
    return rows.map(toApplicationCommand);
  }

  /**
   * The application's bot, or its owner with a Bearer token of the application (the scope is
   * checked by @Auth); anyone else gets Discord's 403 Missing Access. A guild's commands need the
   * bot in the guild (Discord's 403 Missing Access, 50001).
   */
  private async authorize(caller: Caller, scope: CommandScope): Promise<void> {
    const app = await this.apps.findCached(scope.applicationId);
    const own =
      app !== null &&
      ((caller.kind === 'bot' && caller.applicationId === app.id) ||
        (caller.kind === 'bearer' &&
          caller.applicationId === app.id &&
          caller.userId === app.ownerId));
    if (!own) throw new ApiError(ErrorCode.AccessDenied);
    if (scope.guildId !== null && !(await this.access.access(app.botUserId, scope.guildId))) {
      throw new ApiError(ErrorCode.AccessDenied);
    }
  }

  /** Serialises the writers of one scope (names, limits, the day's count) and reads its commands. */
  private async lockScope(
    m: EntityManager,
    scope: CommandScope,
  ): Promise<ApplicationCommandEntity[]> {
    await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `application_commands:${scope.applicationId}:${scope.guildId ?? 0}`,
    ]);
    return m.find(ApplicationCommandEntity, {
      where: { applicationId: scope.applicationId, guildId: scope.guildId ?? IsNull() },
      order: { id: 'ASC' },
    });
  }

  private async find(
    m: EntityManager,
    scope: CommandScope,
    id: string,
  ): Promise<ApplicationCommandEntity> {
    const row = await m.findOneBy(ApplicationCommandEntity, {
      id,
      applicationId: scope.applicationId,
      guildId: scope.guildId ?? IsNull(),
    });
    if (!row) throw new ApiError(ErrorCode.UnknownApplicationCommand);
    return row;
  }

  /** Adds `n` to the scope's creates of the day (UTC); 400 beyond Discord's 200. */
  private async countCreates(m: EntityManager, scope: CommandScope, n: number): Promise<void> {
    if (n === 0) return;
    const key = [scope.applicationId, scope.guildId ?? '0'];
    // Only today's row counts: the scope's older ones go (the table stays one row per scope).
    await m.query(
      `DELETE FROM application_command_creates
        WHERE application_id = $1 AND scope_id = $2 AND day < (now() AT TIME ZONE 'UTC')::date`,
      key,
    );
    const [{ count }] = await m.query<Array<{ count: number }>>(
      `INSERT INTO application_command_creates (application_id, scope_id, day, count)
       VALUES ($1, $2, (now() AT TIME ZONE 'UTC')::date, $3)
       ON CONFLICT (application_id, scope_id, day)
       DO UPDATE SET count = application_command_creates.count + EXCLUDED.count
       RETURNING count`,
      [...key, n],
    );
    if (count > MAX_DAILY_CREATES) throw new ApiError(ErrorCode.MaxDailyApplicationCommandCreates);
  }

  private newRow(scope: CommandScope): ApplicationCommandEntity {
    const row = new ApplicationCommandEntity();
    row.id = this.snowflakes.next();
    row.applicationId = scope.applicationId;
    row.guildId = scope.guildId;
    return row;
  }

  /** Writes `fields` on the row with a new version (`onlyIfChanged`: kept when nothing changed). */
  private async save(
    m: EntityManager,
    row: ApplicationCommandEntity,
    fields: CommandFields,
    onlyIfChanged = false,
  ): Promise<ApplicationCommandEntity> {
    if (onlyIfChanged && sameFields(row, fields)) return row;
    Object.assign(row, fields);
    row.version = this.snowflakes.next();
    return m.save(row);
  }
}

/** The fields, or 400 with every field error. */
function valid(checked: { fields: CommandFields; errors: FieldError[] }): CommandFields {
  if (checked.errors.length > 0) throw ApiError.form(checked.errors);
  return checked.fields;
}

/** Discord's per-type limits (100 CHAT_INPUT, 5 USER, 5 MESSAGE) over a scope's commands. */
function requireWithinLimits(commands: Array<{ type: number }>): void {
  for (const [type, max] of Object.entries(MAX_COMMANDS_BY_TYPE)) {
    if (commands.filter((c) => c.type === Number(type)).length > max) {
      throw new ApiError(ErrorCode.MaxApplicationCommands);
    }
  }
}

function sameFields(row: ApplicationCommandEntity, fields: CommandFields): boolean {
  return (Object.keys(fields) as Array<keyof CommandFields>).every(
    (k) => canonical(row[k]) === canonical(fields[k]),
  );
}

/** JSON with sorted keys: jsonb gives its keys back in an order of its own. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
