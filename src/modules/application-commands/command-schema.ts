import { fieldError, type FieldError } from '../../common/errors/api-error';
import { FieldErrorCode as F } from '../../common/errors/field-error-code';
import { parsePermissions } from '../guilds/permissions';

/**
 * Discord's rules for an application command's body, in one pure function: what Create, Edit and
 * Bulk Overwrite accept, turned into what is stored (unknown keys dropped, defaults filled). Every
 * broken rule is a field error (`options.0.choices.2.value`), all of them at once, as Discord
 * answers its 50035 Invalid Form Body.
 */

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

/** Discord's limits. */
export const MAX_OPTIONS = 25;
export const MAX_CHOICES = 25;
const MAX_STRING_LENGTH = 6000;
/** Discord's bound on integer and number option values (±2^53). */
const MAX_NUMBER = 2 ** 53;

/** Discord's locales (the keys of `name_localizations` and `description_localizations`). */
export const LOCALES = new Set(
  (
    'id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el ' +
    'bg ru uk hi th zh-CN ja zh-TW ko'
  ).split(' '),
);

/** Channel types an option's `channel_types` may name (Discord's). */
const CHANNEL_TYPES = new Set([0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16]);
/** Interaction contexts (0 guild, 1 bot DM, 2 private channel) and installation types. */
const CONTEXTS = new Set([0, 1, 2]);
const INTEGRATION_TYPES = new Set([0, 1]);

// Lower-case letters, digits, - and _ in any script (Discord's regex); no spaces.
const CHAT_INPUT_NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

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

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (prefix: string, key: string | number) => (prefix ? `${prefix}.${key}` : String(key));

/** Collects the field errors of one body. */
class Checker {
  readonly errors: FieldError[] = [];

  fail(path: string, code: F, message?: string): void {
    this.errors.push(fieldError(path, code, message));
  }

  /** A command's or option's name: CHAT_INPUT's lower-case rule, or 1-32 of anything. */
  name(path: string, value: unknown, chatInput: boolean): string {
    if (typeof value !== 'string') {
      this.fail(path, value === undefined ? F.BaseTypeRequired : F.BaseTypeString);
      return '';
    }
    const ok = chatInput
      ? CHAT_INPUT_NAME.test(value) && value === value.toLowerCase()
      : value.length >= 1 && value.length <= 32 && value.trim().length > 0;
    if (!ok) this.fail(path, F.ApplicationCommandInvalidName);
    return value;
  }

  /** A string of 1-`max` characters (absent: required). */
  text(path: string, value: unknown, max: number): string {
    if (typeof value !== 'string') {
      this.fail(path, value === undefined ? F.BaseTypeRequired : F.BaseTypeString);
      return '';
    }
    if (value.length < 1 || value.length > max) {
      this.fail(path, F.ApplicationCommandInvalidDescription, `Must be 1 to ${max} characters.`);
    }
    return value;
  }

  localizations(
    path: string,
    value: unknown,
    each: (p: string, v: unknown) => void,
  ): Localizations {
    if (value === undefined || value === null) return null;
    if (!isObject(value)) {
      this.fail(path, F.BaseTypeObject);
      return null;
    }
    for (const [locale, text] of Object.entries(value)) {
      if (!LOCALES.has(locale)) {
        this.fail(join(path, locale), F.BaseTypeChoices, `Unknown locale: ${locale}.`);
      } else each(join(path, locale), text);
    }
    return Object.keys(value).length > 0 ? (value as Record<string, string>) : null;
  }

  bool(path: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') this.fail(path, F.BaseTypeBoolean);
    return value === true;
  }

  /** An array of integers out of `allowed` (null/absent: `fallback`). */
  intList<T extends number[] | null>(
    path: string,
    value: unknown,
    allowed: Set<number>,
    fallback: T,
  ): number[] | T {
    if (value === undefined || value === null) return fallback;
    if (!Array.isArray(value)) {
      this.fail(path, F.BaseTypeArray);
      return fallback;
    }
    value.forEach((v, i) => {
      if (!Number.isInteger(v) || !allowed.has(v as number)) {
        this.fail(join(path, i), F.BaseTypeChoices, `Must be one of ${[...allowed].join(', ')}.`);
      }
    });
    return [...new Set(value as number[])];
  }

  number(path: string, value: unknown, integer: boolean): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (integer && !Number.isInteger(value))
    ) {
      this.fail(path, integer ? F.BaseTypeInteger : F.BaseTypeNumber);
      return undefined;
    }
    if (Math.abs(value) > MAX_NUMBER)
      this.fail(path, F.NumberTypeMax, `Must be within ±${MAX_NUMBER}.`);
    return value;
  }
}

const VALUE_TYPES = new Set([3, 4, 5, 6, 7, 8, 9, 10, 11]);
const CHOICE_TYPES = new Set<number>([OptionType.String, OptionType.Integer, OptionType.Number]);
const NUMERIC_TYPES = new Set<number>([OptionType.Integer, OptionType.Number]);

/** `{key: value}` when there are localizations, else nothing: options and choices omit them. */
const localized = <K extends string>(key: K, value: Localizations) =>
  (value ? { [key]: value } : {}) as { [k in K]?: Record<string, string> };

/** Where an option list sits: which option types it may hold (Discord's nesting rules). */
type Level = 'command' | 'group' | 'subcommand';

function checkOptions(c: Checker, path: string, value: unknown, level: Level): StoredOption[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    c.fail(path, F.BaseTypeArray);
    return [];
  }
  if (value.length > MAX_OPTIONS) {
    c.fail(path, F.BaseTypeMaxLength, `Must have at most ${MAX_OPTIONS} options.`);
    return [];
  }
  const options = value.map((o, i) => checkOption(c, join(path, i), o, level));
  const names = new Set<string>();
  let optionalSeen = false;
  options.forEach((o, i) => {
    if (names.has(o.name))
      c.fail(join(join(path, i), 'name'), F.ApplicationCommandOptionsNameAlreadyExists);
    names.add(o.name);
    if (o.required && optionalSeen) {
      c.fail(join(join(path, i), 'required'), F.ApplicationCommandOptionsRequiredInvalid);
    }
    if (VALUE_TYPES.has(o.type) && !o.required) optionalSeen = true;
  });
  // A level holds subcommands (and groups) or values, never both.
  const nested = options.filter((o) => !VALUE_TYPES.has(o.type)).length;
  if (level === 'command' && nested > 0 && nested < options.length) {
    c.fail(
      path,
      F.ApplicationCommandOptionsTypeInvalid,
      'Subcommands and groups cannot be mixed with other options.',
    );
  }
  return options;
}

function allowedTypes(level: Level): Set<number> {
  if (level === 'group') return new Set([OptionType.SubCommand]);
  if (level === 'subcommand') return VALUE_TYPES;
  return new Set([OptionType.SubCommand, OptionType.SubCommandGroup, ...VALUE_TYPES]);
}

function checkOption(c: Checker, path: string, raw: unknown, level: Level): StoredOption {
  if (!isObject(raw)) {
    c.fail(path, F.BaseTypeObject);
    return { type: 0, name: '', description: '' };
  }
  const type = raw.type;
  if (!Number.isInteger(type) || !allowedTypes(level).has(type as number)) {
    c.fail(
      join(path, 'type'),
      Number.isInteger(type) ? F.ApplicationCommandOptionsTypeInvalid : F.BaseTypeChoices,
    );
  }
  const t = type as number;
  const out: StoredOption = {
    type: t,
    name: c.name(join(path, 'name'), raw.name, true),
    ...localized(
      'name_localizations',
      c.localizations(join(path, 'name_localizations'), raw.name_localizations, (p, v) =>
        c.name(p, v, true),
      ),
    ),
    description: c.text(join(path, 'description'), raw.description, 100),
    ...localized(
      'description_localizations',
      c.localizations(
        join(path, 'description_localizations'),
        raw.description_localizations,
        (p, v) => c.text(p, v, 100),
      ),
    ),
  };
  const only = (key: string, allowed: boolean) => {
    if (!allowed && raw[key] !== undefined && raw[key] !== null) {
      c.fail(
        join(path, key),
        F.ApplicationCommandOptionsTypeInvalid,
        `${key} is not allowed on this option type.`,
      );
      return false;
    }
    return raw[key] !== undefined && raw[key] !== null;
  };
  if (VALUE_TYPES.has(t)) out.required = c.bool(join(path, 'required'), raw.required, false);
  if (t === OptionType.SubCommand || t === OptionType.SubCommandGroup) {
    const sub = t === OptionType.SubCommand ? 'subcommand' : 'group';
    out.options = checkOptions(c, join(path, 'options'), raw.options, sub);
    if (sub === 'group' && out.options.length === 0) {
      c.fail(
        join(path, 'options'),
        F.BaseTypeMinLength,
        'A subcommand group needs at least one subcommand.',
      );
    }
  } else only('options', false);
  if (only('autocomplete', CHOICE_TYPES.has(t)))
    out.autocomplete = c.bool(join(path, 'autocomplete'), raw.autocomplete, false);
  if (only('choices', CHOICE_TYPES.has(t)))
    out.choices = checkChoices(c, join(path, 'choices'), raw.choices, t);
  if (out.autocomplete && out.choices?.length)
    c.fail(join(path, 'autocomplete'), F.ApplicationCommandOptionChoicesInvalid);
  if (only('channel_types', t === OptionType.Channel)) {
    out.channel_types = c.intList(
      join(path, 'channel_types'),
      raw.channel_types,
      CHANNEL_TYPES,
      [],
    );
  }
  const integer = t === OptionType.Integer;
  for (const key of ['min_value', 'max_value'] as const) {
    if (only(key, NUMERIC_TYPES.has(t))) out[key] = c.number(join(path, key), raw[key], integer);
  }
  for (const key of ['min_length', 'max_length'] as const) {
    if (!only(key, t === OptionType.String)) continue;
    const n = c.number(join(path, key), raw[key], true);
    const min = key === 'min_length' ? 0 : 1;
    if (n !== undefined && (n < min || n > MAX_STRING_LENGTH)) {
      c.fail(
        join(path, key),
        n < min ? F.NumberTypeMin : F.NumberTypeMax,
        `Must be ${min} to ${MAX_STRING_LENGTH}.`,
      );
    } else out[key] = n;
  }
  for (const [lo, hi] of [
    ['min_value', 'max_value'],
    ['min_length', 'max_length'],
  ] as const) {
    if (out[lo] !== undefined && out[hi] !== undefined && out[lo] > out[hi]) {
      c.fail(join(path, lo), F.NumberTypeMax, `Must not be more than ${hi}.`);
    }
  }
  return out;
}

function checkChoices(c: Checker, path: string, value: unknown, type: number): StoredChoice[] {
  if (!Array.isArray(value)) {
    c.fail(path, F.BaseTypeArray);
    return [];
  }
  if (value.length > MAX_CHOICES) {
    c.fail(path, F.BaseTypeMaxLength, `Must have at most ${MAX_CHOICES} choices.`);
    return [];
  }
  return value.map((raw, i) => {
    const p = join(path, i);
    if (!isObject(raw)) {
      c.fail(p, F.BaseTypeObject);
      return { name: '', value: '' };
    }
    const choice: StoredChoice = {
      name: c.text(join(p, 'name'), raw.name, 100),
      ...localized(
        'name_localizations',
        c.localizations(join(p, 'name_localizations'), raw.name_localizations, (lp, v) =>
          c.text(lp, v, 100),
        ),
      ),
      value: raw.value as string | number,
    };
    const vp = join(p, 'value');
    if (type === OptionType.String) {
      if (typeof raw.value !== 'string') c.fail(vp, F.BaseTypeString);
      else if (raw.value.length < 1 || raw.value.length > 100)
        c.fail(vp, F.BaseTypeMaxLength, 'Must be 1 to 100 characters.');
    } else if (raw.value === undefined) c.fail(vp, F.BaseTypeRequired);
    else c.number(vp, raw.value, type === OptionType.Integer);
    return choice;
  });
}

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
  const rawDescription: unknown = pick('description', 'description', (v) => (v ?? '') as string);
  let description = '';
  if (chatInput) description = c.text(p('description'), rawDescription, 100);
  else if (rawDescription !== '') c.fail(p('description'), F.ApplicationCommandInvalidDescription);
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
