/**
 * What invoking needs of the application-commands module: a command usable in a guild (the
 * application's global one, or that guild's). The adapter is ApplicationCommandsService.
 */
export const COMMAND_CATALOG = Symbol('COMMAND_CATALOG');

/** An option of a command's schema (Discord's application command option). */
export interface CommandOptionSchema {
  type: number;
  name: string;
  required?: boolean;
  choices?: Array<{ name: string; value: string | number }>;
  options?: CommandOptionSchema[];
  channel_types?: number[];
  min_value?: number;
  max_value?: number;
  min_length?: number;
  max_length?: number;
  autocomplete?: boolean;
}

/** A command as invoking reads it (Discord's application command object). */
export interface InvocableCommand {
  id: string;
  type: number;
  name: string;
  guild_id?: string | null;
  default_member_permissions: string | null;
  options?: CommandOptionSchema[];
}

export interface CommandCatalog {
  findForGuild(
    applicationId: string,
    commandId: string,
    guildId: string,
  ): Promise<InvocableCommand | null>;
}
