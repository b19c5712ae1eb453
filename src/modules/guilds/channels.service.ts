import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { ChannelEntity, ChannelType } from './channel.entity';
import type { CreateChannelDto } from './dto/create-channel.dto';
import { GuildAccessService } from './guild-access.service';
import { toChannelResponse } from './guild.mapper';
import { toGatewayChannel } from './realtime.mapper';
import type { ChannelResponse } from './guild.response';
import { Permissions } from './permissions';

/** Channels of a guild are bounded, so listing them needs no pagination. */
export const MAX_GUILD_CHANNELS = 500;

/** Discord-style text channel names: lower case, whitespace runs become dashes. */
export function normalizeChannelName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

@Injectable()
export class ChannelsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly snowflakes: SnowflakeService,
    private readonly events: RealtimeEvents,
  ) {}

  async list(userId: string, guildId: string): Promise<ChannelResponse[]> {
    await this.access.requirePermission(userId, guildId, 0n);
    const channels = await this.dataSource.getRepository(ChannelEntity).find({
      where: { guildId },
      order: { position: 'ASC', id: 'ASC' },
      take: MAX_GUILD_CHANNELS,
    });
    return channels.map(toChannelResponse);
  }

  /** Needs MANAGE_CHANNELS. */
  async create(userId: string, guildId: string, dto: CreateChannelDto): Promise<ChannelResponse> {
    await this.access.requirePermission(userId, guildId, Permissions.MANAGE_CHANNELS);
    const name = normalizeChannelName(dto.name);
    if (name.length === 0) {
      throw ApiError.field(
        'name',
        FieldErrorCode.BaseTypeRequired,
        'Channel name must not be blank.',
      );
    }
    const channel = await this.dataSource.transaction(async (m) => {
      // Serialises channel creation per guild, so the count and the position are exact.
      await m.query('SELECT id FROM guilds WHERE id = $1 FOR UPDATE', [guildId]);
      const stats = await m
        .createQueryBuilder(ChannelEntity, 'c')
        .select('COUNT(*)::int', 'count')
        .addSelect('COALESCE(MAX(c.position), -1)', 'max')
        .where('c.guild_id = :guildId', { guildId })
        .getRawOne<{ count: number; max: number | string }>();
      if ((stats?.count ?? 0) >= MAX_GUILD_CHANNELS) throw new ApiError(ErrorCode.MaxGuildChannels);
      return this.insert(m, guildId, name, dto.position ?? Number(stats?.max ?? -1) + 1);
    });
    return toChannelResponse(channel);
  }

  /**
   * Writes a text channel in the caller's transaction and announces it (CHANNEL_CREATE): the one
   * place channels are created (the REST route above, a new guild's `general`).
   */
  async insert(
    m: EntityManager,
    guildId: string,
    name: string,
    position: number,
  ): Promise<ChannelEntity> {
    const c = m.create(ChannelEntity, {
      id: this.snowflakes.next(),
      guildId,
      name,
      type: ChannelType.GuildText,
      position,
    });
    await m.insert(ChannelEntity, c);
    await this.events.publish(m, [
      { t: EventName.ChannelCreate, guildId, channelId: c.id, d: toGatewayChannel(c) },
    ]);
    return c;
  }

  /** Needs VIEW_CHANNEL. */
  async get(userId: string, channelId: string): Promise<ChannelResponse> {
    await this.access.requireChannelPermission(userId, channelId, Permissions.VIEW_CHANNEL);
    const channel = await this.dataSource
      .getRepository(ChannelEntity)
      .findOneByOrFail({ id: channelId });
    return toChannelResponse(channel);
  }
}
