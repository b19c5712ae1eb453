import { ApiError, fieldError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { FieldErrorCode } from '../errors/field-error-code';
import { discordErrorBody, discordRoutedUrl, isDiscordUrl } from './discord-dialect';
import { routedUrl } from './platform/http-platform';

describe('the Discord dialect', () => {
  it.each([
    ['/api/v10/users/@me', '/v1/users/@me'],
    ['/api/v9/channels/1/messages?limit=5', '/v1/channels/1/messages?limit=5'],
    ['/api/oauth2/token', '/v1/oauth2/token'],
    ['/api/v10/gateway/bot', '/v1/gateway/bot'],
    ['/api/v10/guilds?x=1', '/v1/guilds?x=1'],
  ])('routes %s as %s', (url, routed) => {
    expect(discordRoutedUrl(url)).toBe(routed);
    expect(routedUrl(url)).toBe(routed);
  });

  it.each(['/api/v10/admin/api-keys', '/api/v10/auth/login', '/api/v11/users/@me', '/api/v10/'])(
    'leaves %s unrouted (no route matches it: 404)',
    (url) => expect(routedUrl(url)).toBe(url),
  );

  it('leaves /v1 and the other paths alone', () => {
    expect(routedUrl('/v1/users/@me')).toBe('/v1/users/@me');
    expect(routedUrl('/apis/v10/users/@me')).toBe('/apis/v10/users/@me');
    expect(isDiscordUrl('/v1/users/@me')).toBe(false);
    expect(isDiscordUrl('/api/v10/users/@me')).toBe(true);
  });

  it('gives known errors Discord’s code and message, others code 0 and the status line', () => {
    expect(discordErrorBody(new ApiError(ErrorCode.UnknownChannel))).toEqual({
      code: 10003,
      message: 'Unknown Channel',
    });
    expect(discordErrorBody(new ApiError(ErrorCode.MissingPermissions))).toEqual({
      code: 50013,
      message: 'Missing Permissions',
    });
    expect(discordErrorBody(new ApiError(ErrorCode.Unauthorized))).toEqual({
      code: 0,
      message: '401: Unauthorized',
    });
    expect(discordErrorBody(new ApiError(ErrorCode.InternalServerError))).toEqual({
      code: 0,
      message: '500: Internal Server Error',
    });
  });

  it('nests form errors by field, with root errors at the top', () => {
    const error = ApiError.form([
      fieldError('embeds.0.title', FieldErrorCode.BaseTypeMaxLength, 'too long'),
      fieldError('embeds.0.title', FieldErrorCode.BaseTypeString, 'not a string'),
      fieldError('content', FieldErrorCode.BaseTypeRequired, 'required'),
      fieldError('root', FieldErrorCode.BaseTypeObject, 'an object'),
    ]);
    expect(discordErrorBody(error)).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        _errors: [{ code: 'BASE_TYPE_OBJECT', message: 'an object' }],
        content: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'required' }] },
        embeds: {
          0: {
            title: {
              _errors: [
                { code: 'BASE_TYPE_MAX_LENGTH', message: 'too long' },
                { code: 'BASE_TYPE_STRING', message: 'not a string' },
              ],
            },
          },
        },
      },
    });
  });

  it('answers a 429 as Discord does', () => {
    const error = new ApiError(ErrorCode.RateLimited, undefined, { retry_after: 2, global: true });
    expect(discordErrorBody(error)).toEqual({
      message: 'You are being rate limited.',
      retry_after: 2,
      global: true,
    });
  });
});
