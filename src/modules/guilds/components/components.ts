import { ApiError, type FieldError } from '../../../common/errors/api-error';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { ComponentReader, type Json } from './component-reader';
import {
  type ActionRow,
  ButtonStyle,
  COMPONENT_LIMITS,
  ComponentType,
  type MessageComponent,
  type TextInput,
} from './component-types';

/** A component being read: the fields checked so far. */
type Component = Json & { type: ComponentType };

const SELECTS: readonly ComponentType[] = [
  ComponentType.StringSelect,
  ComponentType.UserSelect,
  ComponentType.RoleSelect,
  ComponentType.MentionableSelect,
  ComponentType.ChannelSelect,
];

/** What a message's action row may hold: buttons and selects (text inputs only in modals). */
const MESSAGE_ROW_CHILDREN: readonly ComponentType[] = [ComponentType.Button, ...SELECTS];

/** The kinds of `default_values` each auto-populated select takes. */
const DEFAULT_VALUE_TYPES: Partial<Record<ComponentType, readonly string[]>> = {
  [ComponentType.UserSelect]: ['user'],
  [ComponentType.RoleSelect]: ['role'],
  [ComponentType.MentionableSelect]: ['user', 'role'],
  [ComponentType.ChannelSelect]: ['channel'],
};

/** The outcome of reading components: what to store, or why not (field errors). */
export interface ReadComponents<C = MessageComponent> {
  components: Array<ActionRow<C>>;
  errors: FieldError[];
}

/**
 * A message's `components` (bots' messages, interaction responses): up to 5 action rows, each up
 * to 5 buttons or one select, custom ids unique within the message. `path` prefixes the errors.
 */
export function readMessageComponents(raw: unknown, path = 'components'): ReadComponents {
  const reader = new ComponentReader();
  const components = readRows<MessageComponent>(reader, raw, path, (row, at) =>
    readMessageRow(reader, row, at),
  );
  return { components, errors: reader.errors };
}

/**
 * A modal's `components` (interaction callback type 9): up to 5 action rows of one text input
 * each, custom ids unique within the modal.
 */
export function readModalComponents(raw: unknown, path = 'components'): ReadComponents<TextInput> {
  const reader = new ComponentReader();
  const components = readRows<TextInput>(reader, raw, path, (row, at) => {
    const children = reader.array(row.components, `${at}.components`, { min: 1, max: 1 });
    return (children ?? []).flatMap((child, i) => {
      const c = typedChild(reader, child, `${at}.components.${i}`, [ComponentType.TextInput]);
      return c ? [readTextInput(reader, c.src, c.out, c.at)] : [];
    });
  });
  return { components, errors: reader.errors };
}

/** Action rows, their children read by `readChildren` (and so of its kind `C`). */
function readRows<C>(
  reader: ComponentReader,
  raw: unknown,
  path: string,
  readChildren: (row: Json, at: string) => Component[],
): Array<ActionRow<C>> {
  const rows = reader.array(raw, path, { max: COMPONENT_LIMITS.rows });
  return (rows ?? []).flatMap((value, i) => {
    const at = `${path}.${i}`;
    const row = reader.object(value, at);
    if (!row) return [];
    if (row.type !== ComponentType.ActionRow) {
      reader.fail(`${at}.type`, FieldErrorCode.BaseTypeChoices, 'Must be 1 (an action row).');
      return [];
    }
    const out: Json = { type: ComponentType.ActionRow };
    reader.componentId(row, out, at);
    out.components = readChildren(row, at);
    return [out as unknown as ActionRow<C>];
  });
}

function readMessageRow(reader: ComponentReader, row: Json, at: string): Component[] {
  const path = `${at}.components`;
  const children = reader.array(row.components, path, {
    min: 1,
    max: COMPONENT_LIMITS.buttonsPerRow,
  });
  if (!children) return [];
  const out = children.flatMap((child, i) => {
    const c = typedChild(reader, child, `${path}.${i}`, MESSAGE_ROW_CHILDREN);
    if (!c) return [];
    if (c.out.type === ComponentType.Button) return [readButton(reader, c.src, c.out, c.at)];
    return [readSelect(reader, c.src, c.out, c.at)];
  });
  if (children.length > 1 && out.some((c) => SELECTS.includes(c.type))) {
    reader.fail(
      path,
      FieldErrorCode.ComponentLayoutWidthExceeded,
      'A select menu must be alone in its action row.',
    );
  }
  return out;
}

/** A row's child of one of the `allowed` types, with its output started (`type`, `id`). */
function typedChild(
  reader: ComponentReader,
  value: unknown,
  at: string,
  allowed: readonly ComponentType[],
): { src: Json; out: Component; at: string } | null {
  const src = reader.object(value, at);
  if (!src) return null;
  if (!allowed.includes(src.type as ComponentType)) {
    const message =
      src.type === ComponentType.TextInput
        ? 'Text inputs (4) only appear in modals.'
        : `Must be one of ${allowed.join(', ')}.`;
    reader.fail(`${at}.type`, FieldErrorCode.BaseTypeChoices, message);
    return null;
  }
  const out = { type: src.type } as Component;
  reader.componentId(src, out, at);
  return { src, out, at };
}

function readButton(reader: ComponentReader, src: Json, out: Component, at: string): Component {
  reader.integer(src, out, 'style', at, {
    min: ButtonStyle.Primary,
    max: ButtonStyle.Link,
    required: true,
  });
  reader.string(src, out, 'label', at, { max: COMPONENT_LIMITS.buttonLabel });
  reader.emoji(src, out, at);
  if (src.style === ButtonStyle.Link) {
    reader.absent(src, 'custom_id', at, 'A link button has a url and no custom_id.');
    reader.url(src, out, 'url', at);
  } else {
    reader.customId(src, out, at);
    reader.absent(src, 'url', at, 'Only link buttons (style 5) have a url.');
  }
  reader.boolean(src, out, 'disabled', at);
  return out;
}

function readSelect(reader: ComponentReader, src: Json, out: Component, at: string): Component {
  reader.customId(src, out, at);
  if (out.type === ComponentType.StringSelect) readOptions(reader, src, out, at);
  if (out.type === ComponentType.ChannelSelect) readChannelTypes(reader, src, out, at);
  reader.string(src, out, 'placeholder', at, { max: COMPONENT_LIMITS.selectPlaceholder });
  reader.integer(src, out, 'min_values', at, { min: 0, max: COMPONENT_LIMITS.values });
  reader.integer(src, out, 'max_values', at, { min: 1, max: COMPONENT_LIMITS.values });
  const min = typeof out.min_values === 'number' ? out.min_values : 1;
  const max = typeof out.max_values === 'number' ? out.max_values : 1;
  if (min > max) {
    reader.fail(`${at}.min_values`, FieldErrorCode.NumberTypeMax, 'Must not exceed max_values.');
  }
  const options = Array.isArray(out.options) ? out.options.length : undefined;
  if (options !== undefined && typeof out.max_values === 'number' && out.max_values > options) {
    reader.fail(
      `${at}.max_values`,
      FieldErrorCode.NumberTypeMax,
      `Must not exceed the number of options (${options}).`,
    );
  }
  if (out.type !== ComponentType.StringSelect) readDefaultValues(reader, src, out, at, min, max);
  reader.boolean(src, out, 'disabled', at);
  return out;
}

function readOptions(reader: ComponentReader, src: Json, out: Component, at: string): void {
  const path = `${at}.options`;
  const options = reader.array(src.options, path, { min: 1, max: COMPONENT_LIMITS.options });
  if (!options) return;
  const text = { max: COMPONENT_LIMITS.optionText };
  out.options = options.flatMap((value, i) => {
    const option = reader.object(value, `${path}.${i}`);
    if (!option) return [];
    const copy: Json = {};
    reader.string(option, copy, 'label', `${path}.${i}`, { ...text, min: 1, required: true });
    reader.string(option, copy, 'value', `${path}.${i}`, { ...text, min: 1, required: true });
    reader.string(option, copy, 'description', `${path}.${i}`, text);
    reader.emoji(option, copy, `${path}.${i}`);
    reader.boolean(option, copy, 'default', `${path}.${i}`);
    return [copy];
  });
}

function readChannelTypes(reader: ComponentReader, src: Json, out: Component, at: string): void {
  if (src.channel_types === undefined || src.channel_types === null) return;
  const types = reader.array(src.channel_types, `${at}.channel_types`, { max: 32 });
  if (!types) return;
  out.channel_types = types.filter((t, i) => {
    if (Number.isSafeInteger(t) && (t as number) >= 0) return true;
    reader.fail(`${at}.channel_types.${i}`, FieldErrorCode.BaseTypeInteger);
    return false;
  });
}

function readDefaultValues(
  reader: ComponentReader,
  src: Json,
  out: Component,
  at: string,
  min: number,
  max: number,
): void {
  if (src.default_values === undefined || src.default_values === null) return;
  const path = `${at}.default_values`;
  const values = reader.array(src.default_values, path, { min, max });
  if (!values) return;
  const kinds = DEFAULT_VALUE_TYPES[out.type] ?? [];
  out.default_values = values.flatMap((value, i) => {
    const entry = reader.object(value, `${path}.${i}`);
    if (!entry) return [];
    const copy: Json = {};
    reader.snowflake(entry, copy, 'id', `${path}.${i}`);
    if (typeof entry.type === 'string' && kinds.includes(entry.type)) copy.type = entry.type;
    else {
      reader.fail(
        `${path}.${i}.type`,
        FieldErrorCode.BaseTypeChoices,
        `Must be one of ${kinds.join(', ')}.`,
      );
    }
    return [copy];
  });
}

function readTextInput(reader: ComponentReader, src: Json, out: Component, at: string): Component {
  const length = COMPONENT_LIMITS.textInputLength;
  reader.customId(src, out, at);
  reader.integer(src, out, 'style', at, { min: 1, max: 2, required: true });
  reader.string(src, out, 'label', at, {
    min: 1,
    max: COMPONENT_LIMITS.textInputLabel,
    required: true,
  });
  reader.integer(src, out, 'min_length', at, { min: 0, max: length });
  reader.integer(src, out, 'max_length', at, { min: 1, max: length });
  if (
    typeof out.min_length === 'number' &&
    typeof out.max_length === 'number' &&
    out.min_length > out.max_length
  ) {
    reader.fail(`${at}.min_length`, FieldErrorCode.NumberTypeMax, 'Must not exceed max_length.');
  }
  reader.boolean(src, out, 'required', at);
  reader.string(src, out, 'value', at, { max: length });
  reader.string(src, out, 'placeholder', at, { max: COMPONENT_LIMITS.textInputPlaceholder });
  return out;
}

/**
 * The `components` of a message being posted or edited, ready to store: undefined when the body
 * has none (an edit keeps the old ones), `[]` to clear them. Only bots may send components (a
 * user's: 400, as on Discord); invalid ones: 400 with a field error at each problem.
 */
export function messageComponentsOf(raw: unknown, fromBot: boolean): ActionRow[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!fromBot && !(Array.isArray(raw) && raw.length === 0)) {
    throw ApiError.field('components', FieldErrorCode.ComponentsNotAllowed);
  }
  const { components, errors } = readMessageComponents(raw);
  if (errors.length > 0) throw ApiError.form(errors);
  return components;
}
