// Request-body examples of the guild, channel and message routes (Swagger UI pre-fills the first).
import { EXAMPLE, type BodyExamples } from '../../common/openapi/examples';

export const CREATE_GUILD_EXAMPLES: BodyExamples = {
  name: { summary: 'A guild without an icon', value: { name: 'Analytical Engine Society' } },
  icon: {
    summary: 'With an icon (a PNG data URI)',
    value: { name: 'Analytical Engine Society', icon: EXAMPLE.pngDataUri },
  },
};

export const UPDATE_GUILD_EXAMPLES: BodyExamples = {
  rename: { summary: 'Rename the guild', value: { name: 'Difference Engine Society' } },
  icon: { summary: 'Set the icon', value: { icon: EXAMPLE.pngDataUri } },
  remove_images: { summary: 'Remove the icon and the banner', value: { icon: null, banner: null } },
};

export const CREATE_CHANNEL_EXAMPLES: BodyExamples = {
  text: { summary: 'A text channel', value: { name: 'release-notes' } },
  positioned: {
    summary: 'At a given position',
    value: { name: 'announcements', type: 0, position: 0 },
  },
};

export const ADD_MEMBER_EXAMPLES: BodyExamples = {
  member: {
    summary: 'Add the user with @everyone only',
    value: { access_token: EXAMPLE.accessToken },
  },
  roles: {
    summary: 'Add the user with roles of this guild',
    value: { access_token: EXAMPLE.accessToken, roles: [EXAMPLE.roleId] },
  },
};

export const CREATE_MESSAGE_EXAMPLES: BodyExamples = {
  text: { summary: 'A text message', value: { content: 'Hello from the Analytical Engine!' } },
  embed: {
    summary: 'A message with an embed',
    value: {
      content: 'Release 1.4 is out',
      embeds: [
        {
          title: 'Parley 1.4',
          description: 'Passkeys, SMS codes and single sign-on.',
          url: 'https://app.example.com/releases/1.4',
          color: 0x5865f2,
          timestamp: '2024-11-05T14:30:00.000Z',
          fields: [{ name: 'Upgrade', value: 'Run the migrations first.', inline: false }],
          footer: { text: 'Release bot' },
        },
      ],
    },
  },
};

export const EDIT_MESSAGE_EXAMPLES: BodyExamples = {
  content: { summary: 'Correct the text', value: { content: 'Hello from the Difference Engine!' } },
  embeds: {
    summary: 'Replace the embeds',
    value: {
      embeds: [{ title: 'Parley 1.4.1', description: 'A fix for passkey sign-in on Safari.' }],
    },
  },
};

export const UPDATE_CHANNEL_EXAMPLES: BodyExamples = {
  rename: { summary: 'Rename the channel', value: { name: 'release-notes' } },
  move: { summary: 'Move it to the top', value: { position: 0 } },
};

export const BULK_DELETE_EXAMPLES: BodyExamples = {
  purge: {
    summary: 'Delete three recent messages',
    value: { messages: ['1300000000000000001', '1300000000000000002', '1300000000000000003'] },
  },
};
