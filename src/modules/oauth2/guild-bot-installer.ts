import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { GuildAccessService } from '../guilds/guild-access.service';
import { GuildsService } from '../guilds/guilds.service';
import { Permissions } from '../guilds/permissions';
import { UsersService } from '../users/users.service';
import type { BotGuildInstaller } from './bot-guild-installer.port';

/**
 * Consent with `bot` + `guild_id`: the consenting user needs MANAGE_GUILD there and must hold
 * every permission the bot's role is to carry (nobody grants what they do not hold; the owner and
 * ADMINISTRATOR hold all). The bot joins with a role named after it carrying them.
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
    const access = await this.access.requirePermission(
      actorUserId,
      guildId,
      Permissions.MANAGE_GUILD,
      manager,
    );
    this.access.requireGrantable(access, permissions);
    const bot = await this.users.getById(botUserId, manager);
    await this.guilds.addBotMember(guildId, botUserId, permissions, bot.username, manager);
  }

  uninstallEverywhere(botUserId: string, manager: EntityManager): Promise<void> {
    return this.guilds.removeBotEverywhere(manager, botUserId);
  }
}
