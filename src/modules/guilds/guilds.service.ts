import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { BotCaller } from '../../common/auth/caller';
import { CredentialResolvers } from '../../common/auth/credential-resolvers';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { inTransaction } from '../../database/transaction';
import { EventName } from '../../infra/events/realtime-event';
import { RealtimeEvents } from '../../infra/events/realtime-events';
import { AssetStorage } from '../../infra/storage/asset-storage.service';
import { UserEntity } from '../users/user.entity';
import type { AddMemberDto } from './dto/add-member.dto';
import type { CreateGuildDto } from './dto/create-guild.dto';
import type { UpdateGuildDto } from './dto/update-guild.dto';
import { GuildAccessService } from './guild-access.service';
import { GuildMemberEntity } from './guild-member.entity';
import { ChannelsService } from './channels.service';
import { GuildMembersService } from './guild-members.service';
import { GuildBansService } from './guild-bans.service';
import { GuildRolesService } from './guild-roles.service';
import { GuildRoleEntity } from './guild-role.entity';
import { GuildEntity } from './guild.entity';
import { toGuildResponse, toMemberResponse } from './guild.mapper';
import { toGatewayGuild, toGatewayRole } from './realtime.mapper';
import type { GuildResponse, MemberResponse } from './guild.response';
import {
  ALL_PERMISSIONS,
  combine,
  DEFAULT_EVERYONE_PERMISSIONS,
  hasPermission,
  Permissions,
} from './permissions';

/** Guilds and their members. Channels and messages live in their own services. */
@Injectable()
export class GuildsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: GuildAccessService,
    private readonly snowflakes: SnowflakeService,
    private readonly assets: AssetStorage,
    private readonly credentials: CredentialResolvers,
    private readonly members: GuildMembersService,
    private readonly roles: GuildRolesService,
    private readonly bans: GuildBansService,
    private readonly channels: ChannelsService,
    private readonly events: RealtimeEvents,
  ) {}

  /** Creates a guild owned by the caller, with @everyone and a `general` text channel. */
  async create(userId: string, dto: CreateGuildDto): Promise<GuildResponse> {
    const id = this.snowflakes.next();
    const icon = await this.assets.storeImage('icons', id, dto.icon ?? null, 'icon');
    const guild = await this.dataSource.transaction(async (m) => {
      const g = m.create(GuildEntity, {
        id,
        name: dto.name.trim(),
        ownerId: userId,
        icon,
        banner: null,
        createdAt: new Date(),
      });
      await m.insert(GuildEntity, g);
      await this.roles.create(m, id, {
        id,
        name: '@everyone',
        permissions: DEFAULT_EVERYONE_PERMISSIONS,
        position: 0,
      });
      await this.channels.insert(m, id, 'general', 0);
      // Last, so the owner's sessions get the guild complete (GUILD_CREATE) once committed.
      const owner = await m.findOneByOrFail(UserEntity, { id: userId });
      await this.members.add(m, id, owner);
      return g;
    });
    return toGuildResponse(guild);
  }

  async get(userId: string, guildId: string): Promise<GuildResponse> {
    await this.access.requirePermission(userId, guildId, 0n);
    const guild = await this.dataSource.getRepository(GuildEntity).findOneByOrFail({ id: guildId });
    return toGuildResponse(guild);
  }

  /** Name, icon and banner; needs MANAGE_GUILD. */
  async update(userId: string, guildId: string, dto: UpdateGuildDto): Promise<GuildResponse> {
    await this.access.requirePermission(userId, guildId, Permissions.MANAGE_GUILD);
    const patch: Partial<GuildEntity> = {};
    if (dto.name !== undefined) patch.name = dto.name.trim();
    if (dto.icon !== undefined) {
      patch.icon = await this.assets.storeImage('icons', guildId, dto.icon, 'icon');
    }
    if (dto.banner !== undefined) {
      patch.banner = await this.assets.storeImage('banners', guildId, dto.banner, 'banner');
    }
    const repo = this.dataSource.getRepository(GuildEntity);
    if (Object.keys(patch).length === 0)
      return toGuildResponse(await repo.findOneByOrFail({ id: guildId }));
    const guild = await this.dataSource.transaction(async (m) => {
      await m.update(GuildEntity, { id: guildId }, patch);
      return this.announceUpdate(m, guildId);
    });
    return toGuildResponse(guild);
  }

  /**
   * Removes the guild's icon and banner (the admin asset purge), announced; returns what they
   * were, or null when there is no such guild.
   */
  async clearImages(
    m: EntityManager,
    guildId: string,
  ): Promise<{ icon: string | null; banner: string | null } | null> {
    const [guild] = await m.query<Array<{ icon: string | null; banner: string | null }>>(
      'SELECT icon, banner FROM guilds WHERE id = $1 FOR UPDATE',
      [guildId],
    );
    if (!guild) return null;
    await m.update(GuildEntity, { id: guildId }, { icon: null, banner: null });
    await this.announceUpdate(m, guildId);
    return guild;
  }

  /**
   * GUILD_UPDATE for the guild as it is now in `m`'s transaction: Discord's guild object, roles
   * included (bot libraries rebuild their role cache from it). Returns the guild.
   */
  async announceUpdate(m: EntityManager, guildId: string): Promise<GuildEntity> {
    const guild = await m.findOneByOrFail(GuildEntity, { id: guildId });
    const roles = await m.find(GuildRoleEntity, {
      where: { guildId },
      order: { position: 'ASC', id: 'ASC' },
    });
    await this.events.publish(m, [
      {
        t: EventName.GuildUpdate,
        guildId,
        d: { ...toGatewayGuild(guild), roles: roles.map(toGatewayRole), guild_id: guildId },
      },
    ]);
    return guild;
  }

  /**
   * Discord's "Add Guild Member": the calling bot adds a user who granted its application the
   * `guilds.join` scope — the access token, presented in the body, is the user's consent, so
   * nobody is put in a guild without it. The bot needs CREATE_INSTANT_INVITE there; roles need
   * MANAGE_ROLES and, like every grant, only permissions the bot holds itself. Returns the member
   * when added, null when the user already was a member (nothing changes then, as in Discord).
   */
  async addMember(
    bot: BotCaller,
    guildId: string,
    userId: string,
    dto: AddMemberDto,
  ): Promise<MemberResponse | null> {
    const access = await this.access.requirePermission(
      bot.userId,
      guildId,
      Permissions.CREATE_INSTANT_INVITE,
    );
    const grant = await this.credentials.resolveDetached({
      scheme: 'bearer',
      credential: dto.access_token,
    });
    if (
      grant?.kind !== 'bearer' ||
      grant.userId !== userId ||
      grant.applicationId !== bot.applicationId ||
      !grant.scopes.includes('guilds.join')
    ) {
      throw new ApiError(ErrorCode.InvalidOauth2AccessToken);
    }
    const roleIds = [...new Set(dto.roles ?? [])].filter((r) => r !== guildId);
    if (roleIds.length > 0 && !hasPermission(access.permissions, Permissions.MANAGE_ROLES)) {
      throw new ApiError(ErrorCode.MissingPermissions);
    }
    return this.dataSource.transaction(async (m) => {
      const user = await m.findOneBy(UserEntity, { id: userId });
      if (!user) throw new ApiError(ErrorCode.UnknownUser);
      if (roleIds.length > 0) {
        const roles = await m.findBy(GuildRoleEntity, { guildId, id: In(roleIds) });
        if (roles.length !== roleIds.length) {
          throw ApiError.field('roles', FieldErrorCode.UnknownRole);
        }
        this.access.requireGrantable(access, combine(roles.map((r) => r.permissions)));
      }
      const member = await this.members.add(m, guildId, user, roleIds);
      return member ? toMemberResponse(member, user) : null;
    });
  }

  /**
   * Removes a member: the member leaving, or Discord's kick (KICK_MEMBERS, on a member whose
   * highest role is below the caller's; the owner kicks anyone). The owner cannot be removed.
   */
  async removeMember(callerId: string, guildId: string, userId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const leaving = callerId === userId;
      const access = await this.access.requireManager(
        callerId,
        guildId,
        leaving ? 0n : Permissions.KICK_MEMBERS,
        m,
      );
      if (userId === access.ownerId) throw new ApiError(ErrorCode.CannotRemoveGuildOwner);
      if (!leaving) await this.access.requireMemberBelow(access, userId, m);
      if (!(await this.members.remove(m, guildId, userId))) {
        throw new ApiError(ErrorCode.UnknownMember);
      }
    });
  }

  /**
   * For the OAuth2 `bot` scope: adds the bot user as a member with a new role named `roleName`
   * carrying `permissions` (masked to the bits Parley defines; no role when none is left).
   * Idempotent: a bot that already is a member is left as it is. Joins `manager`'s transaction
   * when given (see inTransaction). The caller has checked the grant rule.
   */
  async addBotMember(
    guildId: string,
    botUserId: string,
    permissions: bigint,
    roleName: string,
    manager?: EntityManager,
  ): Promise<void> {
    permissions &= ALL_PERMISSIONS;
    const run = async (m: EntityManager) => {
      // Locked: installs into one guild are serialised (role positions, one membership each).
      const guild = await m.findOne(GuildEntity, {
        where: { id: guildId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!guild) throw new ApiError(ErrorCode.UnknownGuild);
      const already = await m.existsBy(GuildMemberEntity, { guildId, userId: botUserId });
      if (already) return;
      const bot = await m.findOneByOrFail(UserEntity, { id: botUserId });
      if (permissions === 0n) {
        await this.members.add(m, guildId, bot);
        return;
      }
      // Its managed role first, so the bot's GUILD_CREATE lists it and its permissions apply.
      const role = await this.roles.create(m, guildId, {
        name: roleName.slice(0, 100) || 'bot',
        permissions,
        botId: botUserId,
      });
      await this.members.add(m, guildId, bot, [role.id]);
    };
    await inTransaction(this.dataSource, manager, run);
  }

  /**
   * A bot leaves every guild it is in (its application is being deleted), in `m`'s transaction:
   * its memberships (GUILD_MEMBER_REMOVE to the guilds, GUILD_DELETE to its own sessions) and its
   * managed roles (GUILD_ROLE_DELETE) go before its rows do, and its bans are lifted
   * (GUILD_BAN_REMOVE) rather than vanish with its user row.
   */
  async removeBotEverywhere(m: EntityManager, botUserId: string): Promise<void> {
    for (const guildId of await this.bans.guildsBanning(m, botUserId)) {
      await this.bans.unban(m, guildId, botUserId);
    }
    for (const guildId of await this.members.guildsOf(m, botUserId)) {
      await this.members.remove(m, guildId, botUserId);
      for (const role of await this.roles.managedBy(m, guildId, botUserId)) {
        await this.roles.delete(m, guildId, role.id);
      }
    }
  }
}
