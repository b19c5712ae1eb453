/**
 * Adds a bot to a guild during consent. The consent rules only know this port; the adapter
 * (guild-bot-installer.ts) checks the actor's MANAGE_GUILD and gives the bot a role with the
 * requested permissions through the guilds module.
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
