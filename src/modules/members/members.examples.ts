// Request-body examples of Discord's member edits (Swagger UI pre-fills the first).
import { EXAMPLE, type BodyExamples } from '../../common/openapi/examples';

export const UPDATE_MEMBER_EXAMPLES: BodyExamples = {
  nick: { summary: 'Set a nickname', value: { nick: 'Countess' } },
  roles: { summary: 'Set the member’s roles', value: { roles: [EXAMPLE.roleId] } },
  clear: { summary: 'Remove the nickname and every role', value: { nick: null, roles: [] } },
};

export const UPDATE_CURRENT_MEMBER_EXAMPLES: BodyExamples = {
  nick: { summary: 'Set one’s own nickname', value: { nick: 'Enchantress of Numbers' } },
  clear: { summary: 'Remove it', value: { nick: null } },
};
