import { applyDecorators, Delete, Get, Param, Patch, Post, Put } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { Auth } from '../../common/auth/auth.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode as F } from '../../common/errors/field-error-code';
import { ApiErrors, type FieldErrorSpec } from '../../common/openapi/api-errors.decorator';
import { ParseSnowflakePipe } from '../../common/snowflake/parse-snowflake.pipe';
import { ApplicationCommandResponse } from './application-command.response';
import {
  BULK_COMMANDS_EXAMPLES,
  CREATE_COMMAND_EXAMPLES,
  UPDATE_COMMAND_EXAMPLES,
} from './application-commands.examples';
import {
  CreateApplicationCommandDto,
  UpdateApplicationCommandDto,
} from './dto/application-command.dto';

// The route declarations of Discord's command routes, shared by the global set
// (`/applications/{application_id}/commands`) and a guild's (`…/guilds/{guild_id}/commands`).

export const COMMANDS_SCOPE = 'applications.commands.update';

export const ApplicationId = () =>
  Param('application_id', new ParseSnowflakePipe(ErrorCode.UnknownApplication));
export const CommandId = () =>
  Param('command_id', new ParseSnowflakePipe(ErrorCode.UnknownApplicationCommand));

/** The field errors a body can get (command-schema.ts), a few representative paths. */
const FORM_ERRORS: FieldErrorSpec[] = [
  ['name', F.ApplicationCommandInvalidName],
  ['description', F.ApplicationCommandInvalidDescription],
  ['options.0.required', F.ApplicationCommandOptionsRequiredInvalid],
  ['options.1.name', F.ApplicationCommandOptionsNameAlreadyExists],
  ['options.0.type', F.ApplicationCommandOptionsTypeInvalid],
  ['options.0.autocomplete', F.ApplicationCommandOptionChoicesInvalid],
  ['options.0.choices', F.BaseTypeMaxLength],
  ['default_member_permissions', F.PermissionsInvalid],
];

type Kind = 'list' | 'create' | 'overwrite' | 'get' | 'update' | 'delete';
type Where = 'global' | 'guild';

const SCOPE_TEXT: Record<Where, string> = {
  global: 'the application’s global commands',
  guild:
    'the application’s commands in this guild (its bot must be a member: else 403 ACCESS_DENIED)',
};

const WHO =
  'The application’s bot token, or its owner’s Bearer token with `applications.commands.update`; ' +
  'another application’s credentials get 403 ACCESS_DENIED.';

interface RouteDoc {
  method: (path: string) => MethodDecorator;
  path: string;
  operation: string;
  summary: string;
  description: string;
}

const ROUTES: Record<Kind, RouteDoc> = {
  list: {
    method: Get,
    path: '',
    operation: 'list_application_commands',
    summary: 'List commands',
    description: 'Every command of',
  },
  create: {
    method: Post,
    path: '',
    operation: 'create_application_command',
    summary: 'Create a command',
    description:
      'Discord’s upsert: a command whose name and type are taken updates that command (200, ' +
      'new `version`), otherwise it is created (201). Limits: 100 CHAT_INPUT, 5 USER, 5 MESSAGE ' +
      '(400 MAX_APPLICATION_COMMANDS); 200 creates a day (400 ' +
      'MAX_DAILY_APPLICATION_COMMAND_CREATES). Among',
  },
  overwrite: {
    method: Put,
    path: '',
    operation: 'bulk_set_application_commands',
    summary: 'Replace every command',
    description:
      'The list becomes the whole set: a command with an existing name and type keeps its id, ' +
      'the others are created (counted in the 200 creates a day), unlisted ones are deleted. ' +
      'Answers the new set. Replaces',
  },
  get: {
    method: Get,
    path: '/:command_id',
    operation: 'get_application_command',
    summary: 'Get a command',
    description: 'One of',
  },
  update: {
    method: Patch,
    path: '/:command_id',
    operation: 'update_application_command',
    summary: 'Edit a command',
    description: 'The fields given change (not `type`); the `version` changes. One of',
  },
  delete: {
    method: Delete,
    path: '/:command_id',
    operation: 'delete_application_command',
    summary: 'Delete a command',
    description: 'One of',
  },
};

/** A command route: method, path, credentials, documentation and errors. */
export function CommandRoute(kind: Kind, where: Where): MethodDecorator {
  const r = ROUTES[kind];
  const id =
    where === 'guild' ? r.operation.replace('_application', '_guild_application') : r.operation;
  const one = r.path !== '';
  const decorators: Array<MethodDecorator | ClassDecorator> = [
    r.method(r.path),
    Auth({ kind: ['bot', 'bearer'], scopes: [COMMANDS_SCOPE] }),
    ApiOperation({
      operationId: id,
      summary: where === 'guild' ? r.summary.replace('command', 'guild command') : r.summary,
      description: `${r.description} ${SCOPE_TEXT[where]}. ${WHO}`,
    }),
    ApiErrors(ErrorCode.AccessDenied, ...(one ? [ErrorCode.UnknownApplicationCommand] : [])),
  ];
  if (kind === 'create') {
    decorators.push(
      ApiOkResponse({
        type: ApplicationCommandResponse,
        description: 'Updated (name and type existed).',
      }),
      ApiCreatedResponse({ type: ApplicationCommandResponse, description: 'Created.' }),
      ApiErrors(
        ErrorCode.MaxApplicationCommands,
        ErrorCode.MaxDailyApplicationCommandCreates,
        ...FORM_ERRORS,
      ),
      ApiBody({ type: CreateApplicationCommandDto, examples: CREATE_COMMAND_EXAMPLES }),
    );
  } else if (kind === 'overwrite') {
    decorators.push(
      ApiOkResponse({ type: [ApplicationCommandResponse], description: 'The new set.' }),
      ApiErrors(
        ErrorCode.MaxApplicationCommands,
        ErrorCode.MaxDailyApplicationCommandCreates,
        ...FORM_ERRORS.map(([p, c]) => [`0.${p}`, c] as const),
        ['1.name', F.ApplicationCommandsDuplicateName],
      ),
      ApiBody({ type: [CreateApplicationCommandDto], examples: BULK_COMMANDS_EXAMPLES }),
    );
  } else if (kind === 'update') {
    decorators.push(
      ApiOkResponse({ type: ApplicationCommandResponse, description: 'The command as changed.' }),
      ApiErrors(...FORM_ERRORS, ['name', F.ApplicationCommandsDuplicateName]),
      ApiBody({ type: UpdateApplicationCommandDto, examples: UPDATE_COMMAND_EXAMPLES }),
    );
  } else if (kind === 'delete') {
    decorators.push(ApiNoContentResponse({ description: 'Deleted.' }));
  } else {
    decorators.push(
      ApiOkResponse({
        type: one ? ApplicationCommandResponse : [ApplicationCommandResponse],
        description: one ? 'The command.' : 'The commands, oldest first.',
      }),
    );
  }
  return applyDecorators(...decorators);
}
