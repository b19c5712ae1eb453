import type { UserPartialResponse } from '../users/user.response';
import type { GuildMemberResponse } from './guild.response';
import type { ChannelEntity } from './channel.entity';
import type { GuildMemberEntity } from './guild-member.entity';
import type { GuildRoleEntity } from './guild-role.entity';
import type { RoleResponse } from './role.response';
import type { GuildEntity } from './guild.entity';

/**
 * The gateway's shapes of Parley's objects: Discord's, with every field bot libraries read
 * (discord.js iterates arrays and reads many fields unconditionally, so features Parley lacks are
 * empty arrays, zero or null rather than absent).
 */

export type Payload = Record<string, unknown>;

export function toGatewayChannel(
  c: Pick<ChannelEntity, 'id' | 'type' | 'guildId' | 'name' | 'position'>,
): Payload {
  return {
    id: c.id,
    type: c.type,
    guild_id: c.guildId,
    name: c.name,
    position: c.position,
    permission_overwrites: [],
    nsfw: false,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
    parent_id: null,
    flags: 0,
  };
}

/** The role fields the gateway and REST show. */
export type RoleSource = Pick<
  GuildRoleEntity,
  | 'id'
  | 'name'
  | 'position'
  | 'permissions'
  | 'botId'
  | 'color'
  | 'hoist'
  | 'mentionable'
  | 'unicodeEmoji'
>;

/** A role as Discord shapes it; a bot's managed role has `managed` and `tags.bot_id`. */
export function toGatewayRole(r: RoleSource): RoleResponse {
  const role: RoleResponse = {
    id: r.id,
    name: r.name,
    color: r.color,
    colors: { primary_color: r.color, secondary_color: null, tertiary_color: null },
    hoist: r.hoist,
    icon: null,
    unicode_emoji: r.unicodeEmoji,
    position: r.position,
    permissions: r.permissions,
    managed: r.botId !== null,
    mentionable: r.mentionable,
    flags: 0,
  };
  if (r.botId !== null) role.tags = { bot_id: r.botId };
  return role;
}

/** The membership fields a member object shows. */
export type MemberSource = Pick<GuildMemberEntity, 'roles' | 'joinedAt' | 'nick'>;

/** Discord's guild member object (REST and gateway alike). */
export function toDiscordMember(
  user: UserPartialResponse,
  member: MemberSource,
): GuildMemberResponse {
  return {
    user,
    roles: member.roles,
    joined_at: member.joinedAt.toISOString(),
    nick: member.nick,
    avatar: null,
    banner: null,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export function toGatewayMember(
  user: UserPartialResponse,
  source: MemberSource,
  guildId?: string,
): Payload {
  const member: Payload = { ...toDiscordMember(user, source) };
  if (guildId) member.guild_id = guildId;
  return member;
}

/** The guild object (GUILD_UPDATE; GUILD_CREATE adds its collections). */
export function toGatewayGuild(
  g: Pick<GuildEntity, 'id' | 'name' | 'icon' | 'banner' | 'ownerId'>,
): Payload {
  return {
    id: g.id,
    name: g.name,
    icon: g.icon,
    banner: g.banner,
    splash: null,
    discovery_splash: null,
    owner_id: g.ownerId,
    description: null,
    features: [],
    afk_channel_id: null,
    afk_timeout: 300,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    vanity_url_code: null,
    application_id: null,
    max_members: 250_000,
    max_video_channel_users: 0,
    emojis: [],
    stickers: [],
  };
}
