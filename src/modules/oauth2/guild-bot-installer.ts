import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { GuildAccessService } from '../guilds/guild-access.service';
import { GuildsService } from '../guilds/guilds.service';
import { Permissions } from '../guilds/permissions';
import { UsersService } from '../users/users.service';
import type { BotGuildInstaller } from './bot-guild-installer.port';

/**
 * Consent with `bot` + `guild_id`: the consenting user needs MANAGE_GUILD there, and the bot joins
 * with a role named after it carrying the requested permissions.
 */
@Injectable()
export class GuildBotInstaller implements BotGuildInstaller {
  constructor(
    private readonly access: GuildAccessService,
    private readonly guilds: GuildsService,
    private readonly users: UsersService,
  ) {}

  async install(
    actorUserId: string,
    guildId: string,
    botUserId: string,
    permissions: bigint,
    manager: EntityManager,
  ): Promise<void> {
    await this.access.requirePermission(actorUserId, guildId, Permissions.MANAGE_GUILD, manager);
    const bot = await this.users.getById(botUserId, manager);
    await this.guilds.addBotMember(guildId, botUserId, permissions, bot.username, manager);
  }
}
