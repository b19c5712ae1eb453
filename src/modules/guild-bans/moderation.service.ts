import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { GuildAccessService } from '../guilds/guild-access.service';
import { GuildBansService, type BanPage, type GuildBan } from '../guilds/guild-bans.service';
import { Permissions } from '../guilds/permissions';
import { UserEntity } from '../users/user.entity';

/**
 * The rules of Discord's ban routes: BAN_MEMBERS for all of them; a member is banned only when
 * their highest role is below the caller's (the owner bans anyone but themselves; nobody bans the
 * owner); a user who is not a member may be banned too (they then cannot join). The writes and
 * events are GuildBansService's.
 */
@Injectable()
export class ModerationService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly access: GuildAccessService,
    private readonly bans: GuildBansService,
  ) {}

  /** `deleteMessageSeconds` > 0: their messages in the guild of that many past seconds go too. */
  async ban(
    callerId: string,
    guildId: string,
    userId: string,
    reason: string | null,
    deleteMessageSeconds = 0,
  ): Promise<void> {
    await this.db.transaction(async (m) => {
      // First: no join of this guild can pass until the ban is committed.
      await this.bans.lockGuild(m, guildId);
      const manager = await this.access.requireManager(
        callerId,
        guildId,
        Permissions.BAN_MEMBERS,
        m,
      );
      const user = await m.findOneBy(UserEntity, { id: userId });
      if (!user) throw new ApiError(ErrorCode.UnknownUser);
      if (userId === manager.ownerId || userId === callerId) {
        throw new ApiError(ErrorCode.MissingPermissions, 'This user cannot be banned by you.');
      }
      if (await this.access.topRole(guildId, userId, m)) {
        await this.access.requireMemberBelow(manager, userId, m);
      }
      const since =
        deleteMessageSeconds > 0 ? new Date(Date.now() - deleteMessageSeconds * 1000) : undefined;
      await this.bans.ban(m, guildId, user, reason, since);
    });
  }

  async unban(callerId: string, guildId: string, userId: string): Promise<void> {
    await this.db.transaction(async (m) => {
      await this.access.requirePermission(callerId, guildId, Permissions.BAN_MEMBERS, m);
      if (!(await this.bans.unban(m, guildId, userId))) throw new ApiError(ErrorCode.UnknownBan);
    });
  }

  async get(callerId: string, guildId: string, userId: string): Promise<GuildBan> {
    await this.access.requirePermission(callerId, guildId, Permissions.BAN_MEMBERS);
    const ban = await this.bans.find(this.db.manager, guildId, userId);
    if (!ban) throw new ApiError(ErrorCode.UnknownBan);
    return ban;
  }

  async list(callerId: string, guildId: string, page: BanPage): Promise<GuildBan[]> {
    await this.access.requirePermission(callerId, guildId, Permissions.BAN_MEMBERS);
    return this.bans.list(this.db.manager, guildId, page);
  }
}
