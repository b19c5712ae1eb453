// Request-body examples of the interaction routes (Swagger UI pre-fills the first).
import { EXAMPLE, type BodyExamples } from '../../common/openapi/examples';

/** A command's id, as `GET /applications/{id}/guilds/{guild_id}/commands` lists it. */
const COMMAND_ID = '1302159001102540800';

export const INVOKE_EXAMPLES: BodyExamples = {
  command: {
    summary: 'Send a slash command with one option',
    value: {
      type: 2,
      application_id: EXAMPLE.applicationId,
      guild_id: EXAMPLE.guildId,
      channel_id: EXAMPLE.channelId,
      nonce: '1302159001102540801',
      data: {
        id: COMMAND_ID,
        name: 'echo',
        type: 1,
        options: [{ name: 'text', type: 3, value: 'hi' }],
      },
    },
  },
  button: {
    summary: 'Click a button on the application’s message',
    value: {
      type: 3,
      application_id: EXAMPLE.applicationId,
      guild_id: EXAMPLE.guildId,
      channel_id: EXAMPLE.channelId,
      message_id: '1302159001102540802',
      data: { component_type: 2, custom_id: 'confirm' },
    },
  },
};

export const CALLBACK_EXAMPLES: BodyExamples = {
  message: { summary: 'Answer with a message', value: { type: 4, data: { content: 'Pong!' } } },
  ephemeral: {
    summary: 'Answer with a message only the user sees',
    value: { type: 4, data: { content: 'Only you can see this.', flags: 64 } },
  },
  deferred: { summary: 'Answer later (edit @original)', value: { type: 5 } },
};

export const EDIT_EXAMPLES: BodyExamples = {
  content: { summary: 'Fill in a deferred answer', value: { content: 'Done: 3 results.' } },
};
