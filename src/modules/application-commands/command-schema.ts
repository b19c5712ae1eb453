// Discord's rules for an application command's body, in one pure function: what Create, Edit and
// Bulk Overwrite accept, turned into what is stored (unknown keys dropped, defaults filled). Every
// broken rule is a field error (`options.0.choices.2.value`), all of them at once, as Discord
// answers its 50035 Invalid Form Body.

import type { FieldError } from '../../common/errors/api-error';
import { FieldErrorCode as F } from '../../common/errors/field-error-code';
import { parsePermissions } from '../guilds/permissions';
import { Checker, join, type Json } from './command-checker';
import { checkOptions } from './command-options';
import { CommandType, type CommandFields } from './command-types';

/** Interaction contexts (0 guild, 1 bot DM, 2 private channel) and installation types. */
const CONTEXTS = new Set([0, 1, 2]);
const INTEGRATION_TYPES = new Set([0, 1]);

/** `default_member_permissions`: a decimal string (discord.py sends an integer), or null. */
function checkPermissions(c: Checker, path: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const bits = parsePermissions(value);
  if (bits === null) {
    c.fail(path, F.PermissionsInvalid);
    return null;
  }
  return bits.toString();
}

/**
 * Checks a full command body (Create, and each item of Bulk Overwrite with `prefix` = its
 * index). `base` is the command being edited (Edit: absent fields keep their value).
 */
export function checkCommand(
  body: Json,
  prefix = '',
  base?: CommandFields,
): { fields: CommandFields; errors: FieldError[] } {
  const c = new Checker();
  const p = (key: string) => join(prefix, key);
  const has = (key: string) => body[key] !== undefined;
  const rawType = has('type') ? body.type : (base?.type ?? CommandType.ChatInput);
  if (!Number.isInteger(rawType) || ![1, 2, 3].includes(rawType as number)) {
    c.fail(p('type'), F.BaseTypeChoices, 'Must be 1 (CHAT_INPUT), 2 (USER) or 3 (MESSAGE).');
  }
  const type = rawType as number;
  const chatInput = type === CommandType.ChatInput;
  // A field absent from the body keeps the edited command's value, else its check's default.
  const pick = <K extends keyof CommandFields>(
    key: string,
    field: K,
    check: (v: unknown) => CommandFields[K],
  ): CommandFields[K] => (has(key) ? check(body[key]) : base ? base[field] : check(undefined));

  const name = pick('name', 'name', (v) => c.name(p('name'), v, chatInput));
  const nameLocalizations = pick('name_localizations', 'nameLocalizations', (v) =>
    c.localizations(p('name_localizations'), v, (lp, t) => c.name(lp, t, chatInput)),
  );
  // As sent (absent: required on CHAT_INPUT); USER and MESSAGE commands have none ('' or null).
  const rawDescription: unknown = pick('description', 'description', (v) => v as string);
  let description = '';
  if (chatInput) description = c.text(p('description'), rawDescription, 100);
  else if ((rawDescription ?? '') !== '')
    c.fail(p('description'), F.ApplicationCommandInvalidDescription);
  const descriptionLocalizations = pick(
    'description_localizations',
    'descriptionLocalizations',
    (v) => c.localizations(p('description_localizations'), v, (lp, t) => c.text(lp, t, 100)),
  );
  if (!chatInput && descriptionLocalizations) {
    c.fail(p('description_localizations'), F.ApplicationCommandInvalidDescription);
  }
  const options = pick('options', 'options', (v) => checkOptions(c, p('options'), v, 'command'));
  if (!chatInput && options.length > 0) {
    c.fail(
      p('options'),
      F.ApplicationCommandOptionsTypeInvalid,
      'Context menu commands take no options.',
    );
  }
  const fields: CommandFields = {
    type,
    name,
    nameLocalizations,
    description,
    descriptionLocalizations,
    options,
    defaultMemberPermissions: pick('default_member_permissions', 'defaultMemberPermissions', (v) =>
      checkPermissions(c, p('default_member_permissions'), v),
    ),
    dmPermission: pick('dm_permission', 'dmPermission', (v) => c.bool(p('dm_permission'), v, true)),
    contexts: pick('contexts', 'contexts', (v) => c.intList(p('contexts'), v, CONTEXTS, null)),
    integrationTypes: pick('integration_types', 'integrationTypes', (v) =>
      c.intList(p('integration_types'), v, INTEGRATION_TYPES, [0]),
    ),
    nsfw: pick('nsfw', 'nsfw', (v) => c.bool(p('nsfw'), v, false)),
  };
  return { fields, errors: c.errors };
}
