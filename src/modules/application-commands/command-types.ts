/** Discord's application command and option types, and the shapes commands are stored in. */

export const CommandType = { ChatInput: 1, User: 2, Message: 3 } as const;

export const OptionType = {
  SubCommand: 1,
  SubCommandGroup: 2,
  String: 3,
  Integer: 4,
  Boolean: 5,
  User: 6,
  Channel: 7,
  Role: 8,
  Mentionable: 9,
  Number: 10,
  Attachment: 11,
} as const;

export type Localizations = Record<string, string> | null;

export interface StoredChoice {
  name: string;
  name_localizations?: Localizations;
  value: string | number;
}

/** An option as stored and returned (Discord's shape; absent keys are not set). */
export interface StoredOption {
  type: number;
  name: string;
  name_localizations?: Localizations;
  description: string;
  description_localizations?: Localizations;
  required?: boolean;
  choices?: StoredChoice[];
  options?: StoredOption[];
  channel_types?: number[];
  min_value?: number;
  max_value?: number;
  min_length?: number;
  max_length?: number;
  autocomplete?: boolean;
}

/** A command as it is stored (the fields a body sets). */
export interface CommandFields {
  type: number;
  name: string;
  nameLocalizations: Localizations;
  description: string;
  descriptionLocalizations: Localizations;
  options: StoredOption[];
  defaultMemberPermissions: string | null;
  dmPermission: boolean;
  contexts: number[] | null;
  integrationTypes: number[];
  nsfw: boolean;
}
