import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { parseSnowflake } from '../../common/snowflake/snowflake';
import { ComponentType } from '../guilds/components/component-types';
import type { OptionReferences } from './command-options';

interface StoredComponent {
  type: ComponentType;
  custom_id?: string;
  disabled?: boolean;
  options?: Array<{ value: string }>;
  min_values?: number;
  max_values?: number;
  components?: StoredComponent[];
}

/** The component a click names, with the values chosen (selects). */
export interface ClickedComponent {
  type: ComponentType;
  custom_id: string;
  values?: string[];
}

/**
 * The component of `message` that `data` (`{custom_id, component_type, values}`) names: it must
 * exist there, be enabled, be of that type; a select's values must be within its bounds (and,
 * for a string select, among its options; for the others, snowflakes). 400 otherwise.
 */
export function componentOf(
  message: { components: unknown[] },
  data: Record<string, unknown>,
): ClickedComponent {
  const customId = data.custom_id;
  const found = (message.components as StoredComponent[])
    .flatMap((row) => row.components ?? [])
    .find((c) => c.custom_id !== undefined && c.custom_id === customId);
  if (!found || found.disabled || found.type !== data.component_type) {
    throw ApiError.field('data.custom_id', FieldErrorCode.BaseTypeInvalid, 'Unknown component.');
  }
  const out: ClickedComponent = { type: found.type, custom_id: found.custom_id! };
  if (found.type === ComponentType.Button) return out;
  const values = data.values;
  const min = found.min_values ?? 1;
  const max = found.max_values ?? 1;
  if (
    !Array.isArray(values) ||
    values.length < min ||
    values.length > max ||
    !values.every((v) => typeof v === 'string')
  ) {
    throw ApiError.field('data.values', FieldErrorCode.BaseTypeInvalid);
  }
  const valid =
    found.type === ComponentType.StringSelect
      ? values.every((v) => found.options?.some((o) => o.value === v))
      : values.every((v) => parseSnowflake(v) !== null);
  if (!valid) throw ApiError.field('data.values', FieldErrorCode.BaseTypeInvalid);
  out.values = values;
  return out;
}

/** What a user, role, mentionable or channel select's values name (for `resolved`). */
export function selectedReferences(type: ComponentType, values: string[]): OptionReferences | null {
  const refs: OptionReferences = {
    users: new Set(),
    roles: new Set(),
    channels: new Set(),
    mentionables: new Set(),
    focused: 0,
  };
  const into: Partial<Record<ComponentType, Set<string>>> = {
    [ComponentType.UserSelect]: refs.users,
    [ComponentType.RoleSelect]: refs.roles,
    [ComponentType.MentionableSelect]: refs.mentionables,
    [ComponentType.ChannelSelect]: refs.channels,
  };
  const set = into[type];
  if (!set) return null;
  for (const v of values) set.add(v);
  return refs;
}

/**
 * A modal's submitted values: rows (1) of text inputs (4) with `custom_id` and `value` — as the
 * application reads them (`{type: 1, components: [{type: 4, custom_id, value}]}`).
 */
export function modalValues(rows: unknown): unknown[] {
  const bad = () => ApiError.field('data.components', FieldErrorCode.BaseTypeInvalid);
  if (!Array.isArray(rows) || rows.length < 1 || rows.length > 5) throw bad();
  return rows.map((row: unknown) => {
    const inputs = (row as StoredComponent | null)?.components;
    if (!Array.isArray(inputs) || inputs.length !== 1) throw bad();
    return {
      type: ComponentType.ActionRow,
      components: inputs.map((input: unknown) => {
        const { custom_id, value } = (input ?? {}) as { custom_id?: unknown; value?: unknown };
        if (typeof custom_id !== 'string' || typeof value !== 'string' || value.length > 4000) {
          throw bad();
        }
        return { type: ComponentType.TextInput, custom_id, value };
      }),
    };
  });
}
