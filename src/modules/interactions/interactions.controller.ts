import { Body, Controller, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { Caller } from '../../common/auth/caller';
import { CurrentRouteCredential, PathCredential } from '../../common/auth/route-credential';
import { ErrorCode } from '../../common/errors/error-code';
import type { HttpResponse } from '../../common/http/http-types';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { Uploads } from '../../common/http/body-reader';
import type { UploadedFiles } from '../../common/http/multipart';
import { AcceptsFiles } from '../../common/http/route-policy';
import type { ReceivedFile } from '../guilds/attachments/attachment-store';
import { InteractionCallbackDto } from './dto/interaction-callback.dto';
import { InteractionFileIntake } from './interaction-file-intake';
import { InvokeInteractionDto } from './dto/invoke-interaction.dto';
import { InteractionCallbackResponse } from './interaction.response';
import type { InteractionEntity } from './interaction.entity';
import { InteractionInvoker } from './interaction-invoker';
import { InteractionResponses } from './interaction-responses';
import { CALLBACK_EXAMPLES, INVOKE_EXAMPLES } from './interactions.examples';

/** `?with_response=true` (or `1`): answer 200 with Discord's interaction callback response. */
const isTrue = (v: unknown): boolean => v === 'true' || v === '1';

@ApiTags('Interactions')
@Controller('interactions')
export class InteractionsController {
  constructor(
    private readonly invoker: InteractionInvoker,
    private readonly responses: InteractionResponses,
  ) {}

  @Post()
  @HttpCode(204)
  @Auth({ kind: ['user'] })
  @ApiOperation({
    operationId: 'create_interaction',
    summary: 'Invoke an application (user side)',
    description:
      'Discord’s user-side interaction request: sends a command (2), clicks a component (3), ' +
      'asks for autocomplete choices (4) or submits a modal (5) in a guild channel. Needs ' +
      'VIEW_CHANNEL and USE_APPLICATION_COMMANDS there, the application’s bot in the guild, the ' +
      'command’s `default_member_permissions`; options are checked against the command. 204 ' +
      'once handed to the application (INTERACTION_CREATE on its bot’s session, or a signed POST ' +
      'to its endpoint); the caller’s sessions then get INTERACTION_SUCCESS, or ' +
      'INTERACTION_FAILURE when it does not answer within 3 seconds.',
  })
  @ApiBody({ type: InvokeInteractionDto, examples: INVOKE_EXAMPLES })
  @ApiNoContentResponse({ description: 'Handed to the application.' })
  @ApiErrors(
    ErrorCode.UnknownApplication,
    ErrorCode.UnknownChannel,
    ErrorCode.UnknownMessage,
    ErrorCode.MissingPermissions,
  )
  invoke(@CurrentCaller() caller: Caller, @Body() dto: InvokeInteractionDto): Promise<void> {
    return this.invoker.invoke(caller.userId, dto);
  }

  @Post(':interaction_id/:interaction_token/callback')
  @PathCredential('interaction', 'interaction_token')
  @AcceptsFiles(InteractionFileIntake)
  @ApiParam({ name: 'interaction_id', type: String, description: 'The interaction (its `id`)' })
  @ApiParam({
    name: 'interaction_token',
    type: String,
    description: 'The interaction’s `token` (the credential of this route)',
  })
  @ApiQuery({
    name: 'with_response',
    required: false,
    type: Boolean,
    description: 'true: answer 200 with the interaction callback response instead of 204',
  })
  @ApiOperation({
    operationId: 'create_interaction_response',
    summary: 'Answer an interaction',
    description:
      'The application’s first answer: 4 a message, 5 a deferred message (edit `@original` ' +
      'later), 6 a deferred update, 7 an update of the component’s message, 8 autocomplete ' +
      'choices, 9 a modal. No Authorization header: the token in the path is the credential. ' +
      'Once, within 3 seconds of the interaction (a second answer: 400 ' +
      'INTERACTION_ALREADY_ACKNOWLEDGED, Discord’s 40060; later or a wrong token: 404 ' +
      'UNKNOWN_INTERACTION, 10062). Flags 64 makes the message ephemeral: only the invoking user ' +
      'sees it, for the token’s 15 minutes.',
  })
  @ApiBody({ type: InteractionCallbackDto, examples: CALLBACK_EXAMPLES })
  @ApiOkResponse({ type: InteractionCallbackResponse, description: 'With `with_response=true`.' })
  @ApiNoContentResponse({ description: 'Answered.' })
  @ApiErrors(
    ErrorCode.UnknownInteraction,
    ErrorCode.InteractionAlreadyAcknowledged,
    ErrorCode.EmptyMessage,
  )
  async callback(
    @CurrentRouteCredential() interaction: InteractionEntity,
    @Param('interaction_id') _id: string,
    @Query('with_response') withResponse: unknown,
    @Body() dto: InteractionCallbackDto,
    @Uploads() uploads: UploadedFiles<ReceivedFile> | null,
    @Res({ passthrough: true }) res: HttpResponse,
  ): Promise<InteractionCallbackResponse | undefined> {
    const out = await this.responses.respond(interaction, dto, isTrue(withResponse), uploads);
    res.status(out ? 200 : 204);
    return out ?? undefined;
  }
}
