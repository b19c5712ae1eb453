import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { EventName, type RealtimeEvent } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { EphemeralEvents } from '../../infra/events/ephemeral-events';
import { AttachmentSweeper } from './attachments/attachment-sweeper';
import { ChannelEntity, ChannelType } from './channel.entity';
import type { CreateChannelDto } from './dto/create-channel.dto';
import type { UpdateChannelDto } from './dto/update-channel.dto';
import { GuildAccessService } from './guild-access.service';
import { GuildMembersService } from './guild-members.service';
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
    private readonly ephemeral: EphemeralEvents,
    private readonly members: GuildMembersService,
    private readonly sweeper: AttachmentSweeper,
  ) {}

  /**
   * The caller is typing in the channel (VIEW_CHANNEL and SEND_MESSAGES): TYPING_START to those
   * who see the channel. Ephemeral — not stored, not replayed (EphemeralEvents).
   */
  async typing(userId: string, channelId: string): Promise<void> {
    const access = await this.access.requireChannelPermission(
      userId,
      channelId,
      Permissions.VIEW_CHANNEL | Permissions.SEND_MESSAGES,
    );
    const member = await this.members.findMember(this.dataSource.manager, access.guildId, userId);
    if (!member) throw new ApiError(ErrorCode.UnknownChannel);
    this.ephemeral.publish({
      t: EventName.TypingStart,
      guildId: access.guildId,
      channelId,
      userId,
      d: {
        channel_id: channelId,
        guild_id: access.guildId,
        user_id: userId,
        timestamp: Math.floor(Date.now() / 1000),
        member,
      },
    });
  }

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

  /** Renames or moves a channel (Discord's Modify Channel). Needs MANAGE_CHANNELS. */
  async update(userId: string, channelId: string, dto: UpdateChannelDto): Promise<ChannelResponse> {
    await this.access.requireChannelPermission(userId, channelId, Permissions.MANAGE_CHANNELS);
    // `null` is as good as absent (class-validator's @IsOptional lets it through).
    const name = dto.name == null ? undefined : normalizeChannelName(dto.name);
    if (name !== undefined && name.length === 0) {
      throw ApiError.field(
        'name',
        FieldErrorCode.BaseTypeRequired,
        'Channel name must not be blank.',
      );
    }
    const channel = await this.dataSource.transaction(async (m) => {
      const c = await this.locked(m, channelId);
      const changes: Partial<ChannelEntity> = {};
      if (name !== undefined && name !== c.name) changes.name = name;
      if (dto.position != null && dto.position !== c.position) changes.position = dto.position;
      if (Object.keys(changes).length === 0) return c;
      Object.assign(c, changes);
      await m.update(ChannelEntity, { id: c.id }, changes);
      await this.events.publish(m, [
        { t: EventName.ChannelUpdate, guildId: c.guildId, channelId: c.id, d: toGatewayChannel(c) },
      ]);
      return c;
    });
    return toChannelResponse(channel);
  }

  /**
   * Deletes a channel with its messages and webhooks (Discord's Delete Channel: the channel is
   * answered). Needs MANAGE_CHANNELS. CHANNEL_DELETE stands for its messages too (Discord sends no
   * MESSAGE_DELETE for them); WEBHOOKS_UPDATE when webhooks went with it.
   */
  async delete(userId: string, channelId: string): Promise<ChannelResponse> {
    await this.access.requireChannelPermission(userId, channelId, Permissions.MANAGE_CHANNELS);
    const channel = await this.dataSource.transaction(async (m) => {
      const c = await this.locked(m, channelId);
      const [hooks] = await m.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM webhooks WHERE channel_id = $1',
        [c.id],
      );
      await m.delete(ChannelEntity, { id: c.id });
      const events: RealtimeEvent[] = [
        { t: EventName.ChannelDelete, guildId: c.guildId, channelId: c.id, d: toGatewayChannel(c) },
      ];
      if ((hooks?.n ?? 0) > 0) {
        events.push({
          t: EventName.WebhooksUpdate,
          guildId: c.guildId,
          channelId: c.id,
          d: { guild_id: c.guildId, channel_id: c.id },
        });
      }
      await this.events.publish(m, events);
      await this.sweeper.enqueue(m);
      return c;
    });
    return toChannelResponse(channel);
  }

  /** The channel, locked for this transaction (404 when it went meanwhile). */
  private async locked(m: EntityManager, channelId: string): Promise<ChannelEntity> {
    const c = await m.findOne(ChannelEntity, {
      where: { id: channelId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!c) throw new ApiError(ErrorCode.UnknownChannel);
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
