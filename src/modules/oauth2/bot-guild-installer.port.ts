import type { EntityManager } from 'typeorm';

/**
 * Adds a bot to a guild during consent. The consent rules only know this port; the adapter
 * (guild-bot-installer.ts) checks the actor's MANAGE_GUILD and that the actor holds every requested
 * permission, and gives the bot a role with them through the guilds module. Everything runs in the consent's transaction
 * (`manager`), so an install never outlives a consent that failed, nor the reverse.
 */
export const BOT_GUILD_INSTALLER = Symbol('BOT_GUILD_INSTALLER');

export interface BotGuildInstaller {
  install(
    actorUserId: string,
    guildId: string,
    botUserId: string,
    permissions: bigint,
    manager: EntityManager,
  ): Promise<void>;

  /**
   * The bot leaves every guild (its application is being deleted), in `manager`'s transaction,
   * before its rows go: memberships and managed roles are removed through the guilds module, so
   * every guild and the bot's own sessions hear of it.
   */
  uninstallEverywhere(botUserId: string, manager: EntityManager): Promise<void>;
}
