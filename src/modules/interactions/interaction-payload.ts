import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { ChannelEntity } from '../guilds/channel.entity';
import { GuildMembersService } from '../guilds/guild-members.service';
import { GuildRolesService } from '../guilds/guild-roles.service';
import { toChannelResponse } from '../guilds/guild.mapper';
import type { GuildMemberResponse, MessageResponse } from '../guilds/guild.response';
import { toGatewayRole } from '../guilds/realtime.mapper';
import type { OptionReferences } from './command-options';

/** Discord's interaction object as the application receives it (gateway or HTTP). */
export interface InteractionPayload {
  id: string;
  application_id: string;
  type: number;
  token: string;
  version: 1;
  data?: Record<string, unknown>;
  guild_id: string;
  guild: { id: string; locale: string; features: string[] };
  channel_id: string;
  channel: object;
  member: GuildMemberResponse & { permissions: string };
  message?: MessageResponse;
  app_permissions: string;
  locale: string;
  guild_locale: string;
  entitlements: [];
  authorizing_integration_owners: Record<string, string>;
  context: 0;
  attachment_size_limit: number;
}

/** What the payload is built from (checked by the invoker beforehand). */
export interface PayloadParts {
  id: string;
  applicationId: string;
  type: number;
  token: string;
  guildId: string;
  channel: ChannelEntity;
  member: GuildMemberResponse;
  memberPermissions: bigint;
  appPermissions: bigint;
  data?: Record<string, unknown>;
  message?: MessageResponse;
}

/** Parley has no locales yet: every user and guild reads as Discord's default. */
const LOCALE = 'en-US';
/** Discord's default upload limit (files are not attached through interactions yet). */
const ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024;

/** Builds interaction objects and their `resolved` data (Discord's shapes). */
@Injectable()
export class InteractionPayloads {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly members: GuildMembersService,
    private readonly roles: GuildRolesService,
  ) {}

  build(p: PayloadParts): InteractionPayload {
    const payload: InteractionPayload = {
      id: p.id,
      application_id: p.applicationId,
      type: p.type,
      token: p.token,
      version: 1,
      guild_id: p.guildId,
      guild: { id: p.guildId, locale: LOCALE, features: [] },
      channel_id: p.channel.id,
      channel: toChannelResponse(p.channel),
      member: { ...p.member, permissions: p.memberPermissions.toString() },
      app_permissions: p.appPermissions.toString(),
      locale: LOCALE,
      guild_locale: LOCALE,
      entitlements: [],
      authorizing_integration_owners: { '0': p.guildId },
      context: 0,
      attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
    };
    if (p.data) payload.data = p.data;
    if (p.message) payload.message = p.message;
    return payload;
  }

  /**
   * Discord's `resolved`: the users (and their memberships), roles and channels the options or
   * the selected values name, as far as they exist in the guild; a mentionable is whichever of a
   * user or a role it is; a channel with the invoking member's `permissions` in it. Messages (a
   * message command's target) are added by the caller.
   */
  async resolved(
    guildId: string,
    refs: OptionReferences,
    permissions: bigint,
  ): Promise<Record<string, object>> {
    const m = this.db.manager;
    const userIds = [...refs.users, ...refs.mentionables];
    const roleIds = [...refs.roles, ...refs.mentionables];
    const [members, roles, channels] = await Promise.all([
      this.members.membersAmong(m, guildId, userIds),
      roleIds.length ? this.roles.list(m, guildId) : Promise.resolve([]),
      refs.channels.size
        ? m.findBy(ChannelEntity, { id: In([...refs.channels]), guildId })
        : Promise.resolve([]),
    ]);
    const out: Record<string, Record<string, object>> = {};
    for (const [id, member] of members) {
      const { user, ...rest } = member;
      (out.users ??= {})[id] = user;
      (out.members ??= {})[id] = rest;
    }
    const wanted = new Set(roleIds);
    for (const role of roles) {
      if (wanted.has(role.id)) (out.roles ??= {})[role.id] = toGatewayRole(role);
    }
    for (const channel of channels) {
      const { id, name, type } = toChannelResponse(channel);
      // The invoking member's permissions there (no channel overwrites: the guild's).
      (out.channels ??= {})[id] = { id, name, type, permissions: permissions.toString() };
    }
    return out;
  }
}
