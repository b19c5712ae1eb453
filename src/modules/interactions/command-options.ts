import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import type { CommandOptionSchema } from './command-catalog.port';

/** Discord's application command option types. */
export const OptionType = {
  SUB_COMMAND: 1,
  SUB_COMMAND_GROUP: 2,
  STRING: 3,
  INTEGER: 4,
  BOOLEAN: 5,
  USER: 6,
  CHANNEL: 7,
  ROLE: 8,
  MENTIONABLE: 9,
  NUMBER: 10,
  ATTACHMENT: 11,
} as const;

/** An option as the interaction's `data.options` carries it. */
export interface GivenOption {
  name: string;
  type: number;
  value?: string | number | boolean;
  focused?: boolean;
  options?: GivenOption[];
}

/** The ids the options name, by kind: `resolved` is built from them. */
export interface OptionReferences {
  users: Set<string>;
  roles: Set<string>;
  channels: Set<string>;
  /** Mentionables: a user or a role, whichever exists. */
  mentionables: Set<string>;
  /** The option being typed in (autocomplete). */
  focused: number;
}

/**
 * The invocation's options checked against the command's schema (Discord's rules): known names,
 * the right types, required ones present, choices, ranges and lengths; subcommands and groups
 * nested as declared. Returns the options as the application receives them and the ids they
 * reference; a mismatch is 400 with the option's path.
 */
export function checkOptions(
  schema: CommandOptionSchema[],
  given: unknown,
  path = 'data.options',
): { options: GivenOption[]; refs: OptionReferences } {
  const refs: OptionReferences = {
    users: new Set(),
    roles: new Set(),
    channels: new Set(),
    mentionables: new Set(),
    focused: 0,
  };
  const options = checkLevel(schema, given ?? [], path, refs);
  return { options, refs };
}

function checkLevel(
  schema: CommandOptionSchema[],
  given: unknown,
  path: string,
  refs: OptionReferences,
): GivenOption[] {
  if (!Array.isArray(given) || given.length > 25) throw invalid(path);
  const byName = new Map(schema.map((o) => [o.name, o]));
  const seen = new Set<string>();
  const out: GivenOption[] = [];
  given.forEach((raw: unknown, i) => {
    const at = `${path}.${i}`;
    if (!raw || typeof raw !== 'object') throw invalid(at);
    const option = raw as Partial<GivenOption>;
    const declared = typeof option.name === 'string' ? byName.get(option.name) : undefined;
    if (!declared || seen.has(declared.name) || option.type !== declared.type) {
      throw invalid(`${at}.name`);
    }
    seen.add(declared.name);
    if (
      declared.type === OptionType.SUB_COMMAND ||
      declared.type === OptionType.SUB_COMMAND_GROUP
    ) {
      if (given.length !== 1) throw invalid(at);
      out.push({
        name: declared.name,
        type: declared.type,
        options: checkLevel(declared.options ?? [], option.options ?? [], `${at}.options`, refs),
      });
      return;
    }
    out.push(checkValue(declared, option, at, refs));
  });
  for (const declared of schema) {
    const isLeaf =
      declared.type !== OptionType.SUB_COMMAND && declared.type !== OptionType.SUB_COMMAND_GROUP;
    if (isLeaf && declared.required && !seen.has(declared.name) && refs.focused === 0) {
      throw ApiError.field(path, FieldErrorCode.BaseTypeRequired, `${declared.name} is required`);
    }
  }
  if (schema.some((o) => o.type <= OptionType.SUB_COMMAND_GROUP) && out.length !== 1) {
    throw invalid(path);
  }
  return out;
}

function checkValue(
  declared: CommandOptionSchema,
  option: Partial<GivenOption>,
  at: string,
  refs: OptionReferences,
): GivenOption {
  const value = option.value;
  const out: GivenOption = { name: declared.name, type: declared.type, value };
  if (option.focused === true) {
    // What is typed so far: any string, checked when the command is finally sent.
    if (!declared.autocomplete || typeof value !== 'string' || refs.focused > 0) {
      throw invalid(`${at}.focused`);
    }
    refs.focused += 1;
    out.focused = true;
    return out;
  }
  switch (declared.type) {
    case OptionType.STRING:
      if (typeof value !== 'string') throw invalid(`${at}.value`);
      if (
        value.length < (declared.min_length ?? 0) ||
        value.length > (declared.max_length ?? 6000)
      ) {
        throw invalid(`${at}.value`);
      }
      break;
    case OptionType.INTEGER:
    case OptionType.NUMBER: {
      const ok =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (declared.type === OptionType.NUMBER || Number.isSafeInteger(value)) &&
        value >= (declared.min_value ?? -Infinity) &&
        value <= (declared.max_value ?? Infinity);
      if (!ok) throw invalid(`${at}.value`);
      break;
    }
    case OptionType.BOOLEAN:
      if (typeof value !== 'boolean') throw invalid(`${at}.value`);
      break;
    case OptionType.USER:
    case OptionType.CHANNEL:
    case OptionType.ROLE:
    case OptionType.MENTIONABLE: {
      const id = parseSnowflake(value);
      if (!id) throw invalid(`${at}.value`);
      out.value = id;
      kindSet(refs, declared.type).add(id);
      break;
    }
    default:
      // Attachments need uploads (not yet): no value can be valid.
      throw invalid(`${at}.value`);
  }
  if (declared.choices?.length && !declared.choices.some((c) => c.value === out.value)) {
    throw invalid(`${at}.value`);
  }
  return out;
}

function kindSet(refs: OptionReferences, type: number): Set<string> {
  if (type === OptionType.USER) return refs.users;
  if (type === OptionType.ROLE) return refs.roles;
  if (type === OptionType.CHANNEL) return refs.channels;
  return refs.mentionables;
}

function invalid(path: string): ApiError {
  return ApiError.field(path, FieldErrorCode.BaseTypeInvalid, 'Invalid option for this command.');
}
