// Request-body examples of Discord's command routes (Swagger UI pre-fills the first).
import type { BodyExamples } from '../../common/openapi/examples';

const PAINT = {
  name: 'paint',
  description: 'Paints the channel a colour',
  options: [
    {
      type: 3,
      name: 'colour',
      description: 'Which colour',
      required: true,
      choices: [
        { name: 'Red', value: 'red' },
        { name: 'Blue', value: 'blue' },
      ],
    },
    { type: 4, name: 'coats', description: 'How many coats', min_value: 1, max_value: 5 },
  ],
};

const GROUPS = {
  name: 'tag',
  description: 'Manage tags',
  options: [
    {
      type: 1,
      name: 'add',
      description: 'Add a tag',
      options: [{ type: 3, name: 'text', description: 'The tag', required: true, max_length: 50 }],
    },
    {
      type: 2,
      name: 'admin',
      description: 'Tag administration',
      options: [{ type: 1, name: 'purge', description: 'Remove every tag' }],
    },
  ],
  default_member_permissions: '8192',
};

const USER_MENU = { type: 2, name: 'High Five' };

export const CREATE_COMMAND_EXAMPLES: BodyExamples = {
  slash: { summary: 'A slash command with a required choice and an integer range', value: PAINT },
  subcommands: {
    summary: 'Subcommands and a group, for members with MANAGE_MESSAGES',
    value: GROUPS,
  },
  user: { summary: 'A user context-menu command (no description)', value: USER_MENU },
};

export const BULK_COMMANDS_EXAMPLES: BodyExamples = {
  set: {
    summary: 'Two slash commands and a context-menu command',
    value: [PAINT, GROUPS, USER_MENU],
  },
  empty: { summary: 'Remove every command', value: [] },
};

export const UPDATE_COMMAND_EXAMPLES: BodyExamples = {
  describe: {
    summary: 'A new description, localised',
    value: { description: 'Paint it', description_localizations: { fr: 'Peindre' } },
  },
};
