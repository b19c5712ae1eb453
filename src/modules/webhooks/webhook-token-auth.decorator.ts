import { applyDecorators } from '@nestjs/common';
import { CurrentRouteCredential, PathCredential } from '../../common/auth/route-credential';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiErrors } from '../../common/openapi/api-errors.decorator';

/**
 * A route authenticated by `/webhooks/{webhook_id}/{token}` (webhook-credentials.ts): public (no
 * Authorization header), a wrong id or token is 404 UNKNOWN_WEBHOOK before the body is read, and
 * the token never reaches the request log.
 */
export const WebhookTokenAuth = (): MethodDecorator & ClassDecorator =>
  applyDecorators(PathCredential('webhook', 'token'), ApiErrors(ErrorCode.UnknownWebhook));

/** Handler parameter: the webhook the path's id and token authenticated (an AuthenticatedWebhook). */
export const CurrentWebhook = CurrentRouteCredential;
