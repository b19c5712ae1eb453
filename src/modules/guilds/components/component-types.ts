// Discord's message components (the action-row based ones) as Parley stores and returns them:
// the fields they were sent with that Discord defines.

/** Discord's component types (the legacy, action-row based ones). */
export enum ComponentType {
  ActionRow = 1,
  Button = 2,
  StringSelect = 3,
  TextInput = 4,
  UserSelect = 5,
  RoleSelect = 6,
  MentionableSelect = 7,
  ChannelSelect = 8,
}

export enum ButtonStyle {
  Primary = 1,
  Secondary = 2,
  Success = 3,
  Danger = 4,
  Link = 5,
}

/** A custom emoji (`id`) or a unicode one (`name`). */
export interface PartialEmoji {
  id?: string;
  name?: string;
  animated?: boolean;
}

export interface Button {
  type: ComponentType.Button;
  id?: number;
  style: ButtonStyle;
  label?: string;
  emoji?: PartialEmoji;
  custom_id?: string;
  url?: string;
  disabled?: boolean;
}

export interface SelectOption {
  label: string;
  value: string;
  description?: string;
  emoji?: PartialEmoji;
  default?: boolean;
}

export interface SelectMenu {
  type:
    | ComponentType.StringSelect
    | ComponentType.UserSelect
    | ComponentType.RoleSelect
    | ComponentType.MentionableSelect
    | ComponentType.ChannelSelect;
  id?: number;
  custom_id: string;
  options?: SelectOption[];
  channel_types?: number[];
  placeholder?: string;
  min_values?: number;
  max_values?: number;
  default_values?: Array<{ id: string; type: 'user' | 'role' | 'channel' }>;
  disabled?: boolean;
}

export interface TextInput {
  type: ComponentType.TextInput;
  id?: number;
  custom_id: string;
  style: 1 | 2;
  label: string;
  min_length?: number;
  max_length?: number;
  required?: boolean;
  value?: string;
  placeholder?: string;
}

export type MessageComponent = Button | SelectMenu;

/** A top-level component: an action row of a message's components, or of a modal's text inputs. */
export interface ActionRow<C = MessageComponent> {
  type: ComponentType.ActionRow;
  id?: number;
  components: C[];
}

/** Discord's limits on components. */
export const COMPONENT_LIMITS = {
  rows: 5,
  buttonsPerRow: 5,
  options: 25,
  values: 25,
  buttonLabel: 80,
  optionText: 100,
  selectPlaceholder: 150,
  textInputLabel: 45,
  textInputLength: 4000,
  textInputPlaceholder: 100,
} as const;
