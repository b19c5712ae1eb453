import type { ApplicationCommandEntity } from './application-command.entity';
import type { ApplicationCommandResponse } from './application-command.response';

/** Discord's command object: `guild_id` on guild commands, `dm_permission` on global ones. */
export function toApplicationCommand(c: ApplicationCommandEntity): ApplicationCommandResponse {
  return {
    id: c.id,
    type: c.type,
    application_id: c.applicationId,
    ...(c.guildId !== null ? { guild_id: c.guildId } : {}),
    name: c.name,
    name_localizations: c.nameLocalizations,
    description: c.description,
    description_localizations: c.descriptionLocalizations,
    ...(c.options.length > 0 ? { options: c.options } : {}),
    default_member_permissions: c.defaultMemberPermissions,
    ...(c.guildId === null ? { dm_permission: c.dmPermission } : {}),
    contexts: c.contexts,
    integration_types: c.integrationTypes,
    nsfw: c.nsfw,
    version: c.version,
  };
}
