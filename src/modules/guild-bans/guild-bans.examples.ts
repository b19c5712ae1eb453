// Request-body examples of Discord's ban routes (Swagger UI pre-fills the first).
import type { BodyExamples } from '../../common/openapi/examples';

export const CREATE_BAN_EXAMPLES: BodyExamples = {
  ban: { summary: 'Ban the user', value: {} },
  messages: {
    summary: 'And delete their messages of the last day',
    value: { delete_message_seconds: 86400 },
  },
};
