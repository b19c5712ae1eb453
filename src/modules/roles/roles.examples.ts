// Request-body examples of Discord's role routes (Swagger UI pre-fills the first).
import { EXAMPLE, type BodyExamples } from '../../common/openapi/examples';

export const CREATE_ROLE_EXAMPLES: BodyExamples = {
  moderators: {
    summary: 'A coloured, hoisted role that may manage messages',
    value: { name: 'Moderators', permissions: '8192', color: 3447003, hoist: true },
  },
  default: { summary: 'A role with the defaults ("new role", no permissions)', value: {} },
};

export const UPDATE_ROLE_EXAMPLES: BodyExamples = {
  rename: { summary: 'Rename and recolour', value: { name: 'Stewards', color: 15844367 } },
  permissions: {
    summary: 'Set its permissions (view channels, send messages)',
    value: { permissions: '3072' },
  },
};

export const ROLE_POSITIONS_EXAMPLES: BodyExamples = {
  move: { summary: 'Move a role to position 2', value: [{ id: EXAMPLE.roleId, position: 2 }] },
};
