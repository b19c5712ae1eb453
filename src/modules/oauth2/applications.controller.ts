import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Auth, CurrentCaller } from '../../common/auth/auth.decorator';
import type { BotCaller, Caller, SessionCaller } from '../../common/auth/caller';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';
import { REAUTH_ERRORS } from '../auth/mfa/reauth.errors';
import {
  ApplicationPublicResponse,
  ApplicationResponse,
  ApplicationsMeResponse,
  BotProfileResponse,
  BotTokenResetResponse,
  DiscordApplicationResponse,
} from './application.response';
import { RequestAudit, type AuditContext } from '../audit/audit-context';
import { ApiAuditReason } from '../audit/audit-reason.decorator';
import { ApplicationsService } from './applications.service';
import { BotProfileService } from './bot-profile.service';
import {
  ApplicationCreateDto,
  ApplicationUpdateDto,
  CurrentApplicationUpdateDto,
  ApplicationDeleteDto,
  BotTokenResetDto,
  ClientSecretResetDto,
} from './dto/application.dto';
import { BotProfileUpdateDto } from './dto/bot-profile-update.dto';
import {
  BOT_PROFILE_EXAMPLES,
  APPLICATION_DELETE_EXAMPLES,
  BOT_TOKEN_RESET_EXAMPLES,
  CLIENT_SECRET_RESET_EXAMPLES,
  CREATE_APPLICATION_EXAMPLES,
  CURRENT_APPLICATION_UPDATE_EXAMPLES,
  UPDATE_APPLICATION_EXAMPLES,
} from './oauth2.examples';

/** What setting `interactions_endpoint_url` may be refused with. */
const INTERACTIONS_ENDPOINT_ERRORS = [
  ['interactions_endpoint_url', FieldErrorCode.ApplicationInteractionsEndpointUrlInvalid],
  ['interactions_endpoint_url', FieldErrorCode.UrlTypeInvalidUrl],
  ['interactions_endpoint_url', FieldErrorCode.UrlTypeInvalidScheme],
  ['interactions_endpoint_url', FieldErrorCode.BaseTypeMaxLength],
] as const;

@ApiTags('OAuth2 applications')
@Controller()
export class ApplicationsController {
  constructor(
    private readonly apps: ApplicationsService,
    private readonly botProfiles: BotProfileService,
  ) {}

  /** Creates an application with its bot user; the client secret and bot token are shown once. */
  @Post('oauth2/applications')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'create_oauth2_application',
    summary: 'Create an application',
    description:
      'An OAuth2 application with its bot user, owned by the caller. The answer holds the ' +
      'client secret and the bot token: they are shown only this once.',
  })
  @ApiOkResponse({
    type: ApplicationResponse,
    description: 'The new application, with its client secret and bot token.',
  })
  @ApiErrors(
    ['redirect_uris', FieldErrorCode.RedirectUriInvalid],
    ['redirect_uris', FieldErrorCode.BaseTypeMaxLength],
  )
  @ApiBody({ type: ApplicationCreateDto, examples: CREATE_APPLICATION_EXAMPLES })
  create(
    @CurrentCaller() caller: Caller,
    @Body() dto: ApplicationCreateDto,
  ): Promise<ApplicationResponse> {
    return this.apps.create(caller.userId, dto);
  }

  /**
   * The caller's applications (no secrets); a bot gets its own application as Discord's
   * application object (what discord.py reads at login).
   */
  @Get('oauth2/applications/@me')
  @Auth({ kind: ['user', 'bot'] })
  @ApiOperation({
    operationId: 'list_oauth2_applications',
    summary: 'List my applications',
    description:
      'With a session token: the caller’s applications, without their secrets. With a bot ' +
      'token: the bot’s own application as Discord’s application object (`owner`, `verify_key`, ' +
      '`rpc_origins`, `team`, …), as Discord answers a bot.',
  })
  @ApiExtraModels(ApplicationResponse, DiscordApplicationResponse)
  @ApiOkResponse({
    description: 'The caller’s applications; for a bot token, the bot’s application.',
    schema: {
      oneOf: [
        { type: 'array', items: { $ref: getSchemaPath(ApplicationResponse) } },
        { $ref: getSchemaPath(DiscordApplicationResponse) },
      ],
    },
  })
  listMine(
    @CurrentCaller() caller: Caller,
  ): Promise<ApplicationResponse[] | DiscordApplicationResponse> {
    if (caller.kind === 'bot') return this.apps.getDiscordApplication(caller.applicationId);
    return this.apps.listOwned(caller.userId);
  }

  /** The caller's applications (no secrets); same as `GET /oauth2/applications/@me`. */
  @Get('users/@me/applications')
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'list_user_applications',
    summary: 'List my applications (alias)',
    description: 'The same as GET /oauth2/applications/@me.',
  })
  @ApiOkResponse({ type: [ApplicationResponse], description: 'The caller’s applications.' })
  listForUser(@CurrentCaller() caller: Caller): Promise<ApplicationResponse[]> {
    return this.apps.listOwned(caller.userId);
  }

  /** The calling bot's application. */
  @Get('applications/@me')
  @Auth({ kind: 'bot' })
  @ApiOperation({
    operationId: 'get_current_application',
    summary: 'Get the calling bot’s application',
    description: 'For **botToken** only.',
  })
  @ApiOkResponse({ type: ApplicationsMeResponse, description: 'The bot’s application.' })
  currentApplication(@CurrentCaller() caller: BotCaller): Promise<ApplicationsMeResponse> {
    return this.apps.getForBot(caller.applicationId);
  }

  /** Discord's "Edit Current Application": the calling bot's own application. */
  @Patch('applications/@me')
  @Auth({ kind: 'bot' })
  @ApiOperation({
    operationId: 'update_current_application',
    summary: 'Update the calling bot’s application',
    description:
      'For **botToken** only (Discord’s "Edit Current Application"): `description`, the ' +
      'gateway intent `flags` and `interactions_endpoint_url`, verified when set as in ' +
      '`PATCH /oauth2/applications/{id}`.',
  })
  @ApiOkResponse({ type: ApplicationsMeResponse, description: 'The updated application.' })
  @ApiErrors(['flags', FieldErrorCode.BaseTypeChoices], ...INTERACTIONS_ENDPOINT_ERRORS)
  @ApiBody({ type: CurrentApplicationUpdateDto, examples: CURRENT_APPLICATION_UPDATE_EXAMPLES })
  updateCurrent(
    @CurrentCaller() caller: BotCaller,
    @Body() dto: CurrentApplicationUpdateDto,
  ): Promise<ApplicationsMeResponse> {
    return this.apps.updateForBot(caller.applicationId, dto);
  }

  /** One of the caller's applications (404 for anyone else's). */
  @Get('oauth2/applications/:id')
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'get_oauth2_application',
    summary: 'Get one of my applications',
    description: 'Someone else’s application is answered 404, as a missing one.',
  })
  @ApiOkResponse({ type: ApplicationResponse, description: 'The application.' })
  @ApiErrors(ErrorCode.UnknownApplication)
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ApplicationResponse> {
    return this.apps.get(caller.userId, id);
  }

  /** What a consent screen shows about an application. */
  @Get('oauth2/applications/:id/public')
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'get_oauth2_application_public',
    summary: 'Get an application’s public profile',
    description: 'What a consent screen shows about any application.',
  })
  @ApiOkResponse({ type: ApplicationPublicResponse, description: 'The public profile.' })
  @ApiErrors(ErrorCode.UnknownApplication)
  getPublic(@Param('id') id: string): Promise<ApplicationPublicResponse> {
    return this.apps.getPublic(id);
  }

  /** Updates name, bot visibility and redirect URIs. */
  @Patch('oauth2/applications/:id')
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'update_oauth2_application',
    summary: 'Update an application',
    description:
      'Name, bot visibility, redirect URIs, gateway intent flags and the interactions endpoint ' +
      'URL. A new `interactions_endpoint_url` is verified before it is kept: a signed PING must ' +
      'be answered 200 `{"type": 1}` and one with an invalid signature 401 (3 s each, no ' +
      'redirects, public addresses only unless OUTBOUND_ALLOW_PRIVATE=true); otherwise 400 with ' +
      'a field error saying why. null or empty clears it.',
  })
  @ApiOkResponse({ type: ApplicationResponse, description: 'The updated application.' })
  @ApiErrors(
    ErrorCode.UnknownApplication,
    ['redirect_uris', FieldErrorCode.RedirectUriInvalid],
    ['redirect_uris', FieldErrorCode.BaseTypeMaxLength],
    ['flags', FieldErrorCode.BaseTypeChoices],
    ...INTERACTIONS_ENDPOINT_ERRORS,
  )
  @ApiBody({ type: ApplicationUpdateDto, examples: UPDATE_APPLICATION_EXAMPLES })
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: ApplicationUpdateDto,
  ): Promise<ApplicationResponse> {
    return this.apps.update(caller.userId, id, dto);
  }

  /**
   * Deletes the application and its bot user; every token it holds stops working. Needs a
   * re-authentication (password or second factor) unless this session proved one in the last 5 minutes.
   */
  @Delete('oauth2/applications/:id')
  @HttpCode(204)
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'delete_oauth2_application',
    summary: 'Delete an application',
    description:
      'Deletes it and its bot user; every token it holds stops working. Needs a ' +
      're-authentication in the body (`password`, or `mfa_method` + `mfa_code`) unless this ' +
      'session proved one in the last 5 minutes.',
  })
  @ApiAuditReason()
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.UnknownApplication)
  @ApiBody({ type: ApplicationDeleteDto, examples: APPLICATION_DELETE_EXAMPLES, required: false })
  delete(
    @CurrentCaller() caller: SessionCaller,
    @Param('id') id: string,
    @Body() dto: ApplicationDeleteDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.apps.delete(caller, id, dto ?? {}, audit);
  }

  /** New client secret (shown once). Needs a re-authentication (password or second factor) unless this session proved one in the last 5 minutes. */
  @Post('oauth2/applications/:id/client-secret/reset')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'reset_oauth2_application_client_secret',
    summary: 'Reset the client secret',
    description:
      'A new client secret, shown only in this answer; the old one stops working. Needs a ' +
      're-authentication in the body (`password`, or `mfa_method` + `mfa_code`) unless this ' +
      'session proved one in the last 5 minutes.',
  })
  @ApiAuditReason()
  @ApiOkResponse({
    type: ApplicationResponse,
    description: 'The application, with its new client secret.',
  })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.UnknownApplication)
  @ApiBody({ type: ClientSecretResetDto, examples: CLIENT_SECRET_RESET_EXAMPLES })
  resetClientSecret(
    @CurrentCaller() caller: SessionCaller,
    @Param('id') id: string,
    @Body() dto: ClientSecretResetDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<ApplicationResponse> {
    return this.apps.resetClientSecret(caller, id, dto, audit);
  }

  /** Updates the bot's profile. */
  @Patch('oauth2/applications/:id/bot')
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'update_bot_profile',
    summary: 'Update the bot’s profile',
    description: 'Username, discriminator, avatar, banner and flags of the application’s bot user.',
  })
  @ApiOkResponse({ type: BotProfileResponse, description: 'The updated bot profile.' })
  @ApiErrors(
    ErrorCode.UnknownApplication,
    ['avatar', FieldErrorCode.ImageInvalid],
    ['banner', FieldErrorCode.ImageInvalid],
    ['bot_flags', FieldErrorCode.BotFlagsInvalid],
    ['username', FieldErrorCode.UsernameTooManyUsers],
    ['discriminator', FieldErrorCode.DiscriminatorTaken],
  )
  @ApiBody({ type: BotProfileUpdateDto, examples: BOT_PROFILE_EXAMPLES })
  updateBot(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: BotProfileUpdateDto,
  ): Promise<BotProfileResponse> {
    return this.botProfiles.update(caller.userId, id, dto);
  }

  /**
   * New bot token (shown once); the previous one stops working immediately. Needs a
   * re-authentication (password or second factor) unless this session proved one in the last 5 minutes.
   */
  @Post('oauth2/applications/:id/bot/reset-token')
  @HttpCode(200)
  @Auth({ kind: 'user' })
  @ApiOperation({
    operationId: 'reset_bot_token',
    summary: 'Reset the bot token',
    description:
      'A new bot token, shown only in this answer; the previous one stops working at once. ' +
      'Needs a re-authentication in the body (`password`, or `mfa_method` + `mfa_code`) unless ' +
      'this session proved one in the last 5 minutes.',
  })
  @ApiAuditReason()
  @ApiOkResponse({ type: BotTokenResetResponse, description: 'The new bot token.' })
  @ApiErrors(...REAUTH_ERRORS, ErrorCode.UnknownApplication)
  @ApiBody({ type: BotTokenResetDto, examples: BOT_TOKEN_RESET_EXAMPLES })
  resetBotToken(
    @CurrentCaller() caller: SessionCaller,
    @Param('id') id: string,
    @Body() dto: BotTokenResetDto,
    @RequestAudit() audit: AuditContext,
  ): Promise<BotTokenResetResponse> {
    return this.apps.resetBotToken(caller, id, dto, audit);
  }
}
