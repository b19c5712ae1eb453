/**
 * Adds a bot to a guild during consent. The guilds module provides the adapter (it checks the
 * actor's MANAGE_GUILD and gives the bot a role with the requested permissions); OAuth2 only
 * knows this port, so it never imports the guilds module.
 */
export const BOT_GUILD_INSTALLER = Symbol('BOT_GUILD_INSTALLER');

export interface BotGuildInstaller {
  install(
    actorUserId: string,
    guildId: string,
    botUserId: string,
    permissions: bigint,
  ): Promise<void>;
}
