import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { parseSnowflake } from '../../../common/snowflake/snowflake';
import { GuildMembersService } from '../../guilds/guild-members.service';
import type { GuildMemberResponse } from '../../guilds/guild.response';
import { RequestGuildMembersDto } from '../dto/request-guild-members.dto';
import { validatePayload } from '../dto/validate-payload';
import type { GatewayConnection } from '../gateway-connection';
import type { GatewaySession } from '../gateway-session';
import { CloseCode, GatewayDispatchEvents as E, Intent } from '../protocol';
import { PresenceService } from '../presence.service';

/** Members per GUILD_MEMBERS_CHUNK (Discord's). */
export const CHUNK_SIZE = 1_000;
/** A search by name answers at most this many (Discord's). */
const MAX_QUERY_RESULTS = 100;

/**
 * Op 8 Request Guild Members → GUILD_MEMBERS_CHUNK dispatches (Discord's rules): by id
 * (`user_ids`, ≤ 100; the unknown ones in `not_found`), by name prefix (`query`, ≤ 100), or the
 * whole list (`query: ""`, which needs the GUILD_MEMBERS intent: 4013 otherwise), in chunks of
 * 1,000 with `chunk_index`/`chunk_count` and the request's `nonce`. A guild the session does not
 * follow gets one empty chunk, as on Discord. The chunks answer this session only: like ephemeral
 * events they carry no sequence number (a resume replays the log, not answers to requests).
 */
@Injectable()
export class RequestGuildMembersHandler {
  private readonly logger = new Logger('Gateway');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly members: GuildMembersService,
    private readonly presences: PresenceService,
  ) {}

  handle(conn: GatewayConnection, session: GatewaySession, d: unknown): void {
    const checked = validatePayload(RequestGuildMembersDto, d, {});
    if (!checked.ok) return conn.close(checked.close);
    const dto = checked.value;
    if (dto.query === undefined && dto.user_ids === undefined) {
      return conn.close(CloseCode.DecodeError);
    }
    const whole = dto.user_ids === undefined && dto.query === '';
    if (whole && !session.wants(Intent.GuildMembers)) {
      return conn.close(CloseCode.InvalidIntents);
    }
    this.answer(session, dto).catch((err: unknown) => {
      this.logger.error(`member chunks failed: ${(err as Error).message}`);
    });
  }

  private async answer(session: GatewaySession, dto: RequestGuildMembersDto): Promise<void> {
    const guildId = parseSnowflake(dto.guild_id) as string;
    const m = this.db.manager;
    const base = { guild_id: guildId, ...(dto.nonce !== undefined && { nonce: dto.nonce }) };
    // Presences only with GUILD_PRESENCES (Discord: `presences` is otherwise always false).
    const withPresences = dto.presences === true && session.wants(Intent.GuildPresences);
    const send = async (
      members: GuildMemberResponse[],
      index: number,
      count: number,
      extra = {},
    ): Promise<void> => {
      const presences = withPresences
        ? [...(await this.presences.gatewayPresencesOf(members.map((mb) => mb.user.id))).values()]
        : undefined;
      session.dispatchEphemeral(
        E.GuildMembersChunk,
        JSON.stringify({
          ...base,
          members,
          chunk_index: index,
          chunk_count: count,
          ...(presences && { presences }),
          ...extra,
        }),
      );
    };
    if (!session.follows(guildId)) return send([], 0, 1);
    if (dto.user_ids !== undefined) {
      const ids = dto.user_ids.map((id) => parseSnowflake(id) as string);
      const found = await this.members.membersAmong(m, guildId, ids);
      const notFound = ids.filter((id) => !found.has(id));
      return send([...found.values()], 0, 1, notFound.length > 0 ? { not_found: notFound } : {});
    }
    const query = dto.query ?? '';
    if (query !== '') {
      const limit = Math.min(dto.limit || MAX_QUERY_RESULTS, MAX_QUERY_RESULTS);
      return send(await this.members.searchMembers(m, guildId, query, limit), 0, 1);
    }
    await this.wholeList(guildId, dto.limit ?? 0, send);
  }

  /** Every member (or the first `limit`), in user id order, a chunk per query. */
  private async wholeList(
    guildId: string,
    limit: number,
    send: (members: GuildMemberResponse[], index: number, count: number) => Promise<void>,
  ): Promise<void> {
    const m = this.db.manager;
    const [{ n }] = await m.query<Array<{ n: number }>>(
      'SELECT count(*)::int AS n FROM guild_members WHERE guild_id = $1',
      [guildId],
    );
    const total = limit > 0 ? Math.min(limit, n) : n;
    const count = Math.max(1, Math.ceil(total / CHUNK_SIZE));
    let after = '0';
    for (let index = 0; index < count; index++) {
      const take = Math.min(CHUNK_SIZE, total - index * CHUNK_SIZE);
      const chunk = take > 0 ? await this.members.listMembers(m, guildId, take, after) : [];
      await send(chunk, index, count);
      if (chunk.length < take) break;
      after = chunk[chunk.length - 1].user.id;
    }
  }
}
