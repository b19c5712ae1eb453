import { FieldErrorCode as F } from '../../common/errors/field-error-code';
import { Checker, isObject, join, localized } from './command-checker';
import { OptionType, type StoredChoice, type StoredOption } from './command-types';

// Discord's rules for a CHAT_INPUT command's options: types, nesting, names, choices and the
// fields each type takes (command-schema.ts checks the rest of the body).

/** Discord's limits. */
export const MAX_OPTIONS = 25;
export const MAX_CHOICES = 25;
const MAX_STRING_LENGTH = 6000;

/** Channel types an option's `channel_types` may name (Discord's). */
const CHANNEL_TYPES = new Set([0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16]);

const VALUE_TYPES = new Set([3, 4, 5, 6, 7, 8, 9, 10, 11]);
const CHOICE_TYPES = new Set<number>([OptionType.String, OptionType.Integer, OptionType.Number]);
const NUMERIC_TYPES = new Set<number>([OptionType.Integer, OptionType.Number]);

/** Where an option list sits: which option types it may hold (Discord's nesting rules). */
type Level = 'command' | 'group' | 'subcommand';

export function checkOptions(
  c: Checker,
  path: string,
  value: unknown,
  level: Level,
): StoredOption[] {
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
  // Not an option type at all, or one that does not belong at this level.
  if (!Number.isInteger(type) || (type as number) < 1 || (type as number) > 11) {
    c.fail(join(path, 'type'), F.BaseTypeChoices, 'Must be an option type (1-11).');
  } else if (!allowedTypes(level).has(type as number)) {
    c.fail(join(path, 'type'), F.ApplicationCommandOptionsTypeInvalid);
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
