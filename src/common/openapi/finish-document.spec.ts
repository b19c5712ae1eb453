import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_TABLE, ErrorCode } from '../errors/error-code';
import { FieldErrorCode } from '../errors/field-error-code';
import {
  ERROR_CODES_EXTENSION,
  FIELD_ERRORS_EXTENSION,
  NO_RATE_LIMIT_EXTENSION,
  OAUTH_ERRORS_EXTENSION,
  QUERY_BY_HAND_EXTENSION,
} from './api-errors.decorator';
import { finishOpenApiDocument } from './finish-document';

type Examples = Record<string, { value: Record<string, unknown> }>;

function doc(paths: OpenAPIObject['paths']): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths,
    components: {
      schemas: {
        Body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
    },
  };
}

const examplesOf = (d: OpenAPIObject, path: string, method: 'get' | 'post', status: string) =>
  (
    d.paths[path][method]!.responses[status] as unknown as {
      content: { 'application/json': { examples: Examples } };
    }
  ).content['application/json'].examples;

describe('finishOpenApiDocument', () => {
  it('documents declared codes by status with their table message, and replaces old error responses', () => {
    const d = finishOpenApiDocument(
      doc({
        '/v1/webhooks/{webhook_id}': {
          get: {
            tags: ['Webhooks'],
            security: [{ sessionToken: [] }],
            parameters: [{ name: 'webhook_id', in: 'path', required: true }],
            responses: {
              '200': { description: 'The webhook.' },
              '404': { description: 'hand-written' },
            },
            [ERROR_CODES_EXTENSION]: [ErrorCode.UnknownWebhook, ErrorCode.MissingPermissions],
          } as never,
        },
      }),
    );
    const op = d.paths['/v1/webhooks/{webhook_id}'].get!;
    expect(Object.keys(op.responses).sort()).toEqual(
      ['200', '400', '401', '403', '404', '429', '500', '503'].sort(),
    );
    expect(examplesOf(d, '/v1/webhooks/{webhook_id}', 'get', '404')).toEqual({
      UNKNOWN_WEBHOOK: {
        summary: ERROR_TABLE[ErrorCode.UnknownWebhook].message,
        value: { code: 'UNKNOWN_WEBHOOK', message: 'Unknown webhook.' },
      },
    });
    expect(Object.keys(examplesOf(d, '/v1/webhooks/{webhook_id}', 'get', '403')).sort()).toEqual([
      'IP_BANNED',
      'MISSING_PERMISSIONS',
    ]);
    expect(examplesOf(d, '/v1/webhooks/{webhook_id}', 'get', '401')).toHaveProperty('UNAUTHORIZED');
    // No body, no query: no validation or body-parsing codes; only a path the router cannot decode.
    expect(Object.keys(examplesOf(d, '/v1/webhooks/{webhook_id}', 'get', '400'))).toEqual([
      'BAD_REQUEST',
    ]);
    expect(op.responses['415']).toBeUndefined();
    expect((op.parameters![0] as { description?: string }).description).toMatch(/Webhook ID/);
    expect(d.tags?.map((t) => t.name)).toEqual(['Webhooks']);
    expect(d.tags?.[0].description).toMatch(/MANAGE_WEBHOOKS/);
  });

  it('adds body and validation codes, and field errors, to routes with a JSON body', () => {
    const d = finishOpenApiDocument(
      doc({
        '/v1/auth/register': {
          post: {
            security: [{}],
            requestBody: {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } },
            },
            responses: { '200': { description: 'ok' } },
            [FIELD_ERRORS_EXTENSION]: [`email:${FieldErrorCode.EmailAlreadyRegistered}`],
          } as never,
        },
      }),
    );
    const op = d.paths['/v1/auth/register'].post!;
    // Public (an empty security requirement): no 401.
    expect(op.responses['401']).toBeUndefined();
    const bad = examplesOf(d, '/v1/auth/register', 'post', '400');
    expect(Object.keys(bad).sort()).toEqual(
      [
        'BAD_REQUEST',
        'INVALID_FORM_BODY: BASE_TYPE_REQUIRED',
        'INVALID_FORM_BODY: EMAIL_ALREADY_REGISTERED',
        'INVALID_JSON',
        'JSON_TOO_DEEP',
        'JSON_TOO_MANY_ITEMS',
      ].sort(),
    );
    expect(bad['INVALID_FORM_BODY: BASE_TYPE_REQUIRED'].value.errors).toEqual([
      expect.objectContaining({ path: 'name', code: 'BASE_TYPE_REQUIRED' }),
    ]);
    expect(examplesOf(d, '/v1/auth/register', 'post', '413')).toHaveProperty('PAYLOAD_TOO_LARGE');
    expect(examplesOf(d, '/v1/auth/register', 'post', '415')).toHaveProperty(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('renders RFC 6749 errors in their own shape, and leaves rate limits off exempt routes', () => {
    const d = finishOpenApiDocument(
      doc({
        '/v1/oauth2/token': {
          post: {
            requestBody: {
              content: {
                'application/json': { schema: { type: 'object' } },
                'application/x-www-form-urlencoded': { schema: { type: 'object' } },
              },
            },
            responses: { '200': { description: 'ok' } },
            [OAUTH_ERRORS_EXTENSION]: ['invalid_client', 'invalid_grant'],
          } as never,
        },
        '/v1/archives/{archiveId}/download': {
          get: {
            parameters: [{ name: 'expires', in: 'query' }],
            responses: { '200': { description: 'ok' } },
            [QUERY_BY_HAND_EXTENSION]: true,
          } as never,
        },
        '/v1/audit-logs': {
          get: {
            parameters: [{ name: 'limit', in: 'query' }],
            responses: { '200': { description: 'ok' } },
          } as never,
        },
        '/v1/health/live': {
          get: {
            responses: { '200': { description: 'ok' } },
            [NO_RATE_LIMIT_EXTENSION]: true,
          } as never,
        },
      }),
    );
    expect(examplesOf(d, '/v1/oauth2/token', 'post', '401')).toEqual({
      invalid_client: expect.objectContaining({
        value: expect.objectContaining({ error: 'invalid_client' }),
      }),
    });
    const bad = d.paths['/v1/oauth2/token'].post!.responses['400'] as unknown as {
      content: { 'application/json': { schema: { $ref?: string } } };
    };
    // The RFC 6749 endpoints parse and validate by hand: invalid_request, never the envelope.
    expect(bad.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/OAuthErrorResponse',
    );
    const codes = Object.keys(examplesOf(d, '/v1/oauth2/token', 'post', '400'));
    expect(codes).toEqual(['invalid_grant']);
    // Query parameters are validated (INVALID_FORM_BODY) unless the handler reads them itself.
    expect(examplesOf(d, '/v1/audit-logs', 'get', '400')).toHaveProperty([
      'INVALID_FORM_BODY: BASE_TYPE_INVALID',
    ]);
    expect(d.paths['/v1/archives/{archiveId}/download'].get!.responses['400']).toBeUndefined();
    expect(d.paths['/v1/health/live'].get!.responses['429']).toBeUndefined();
  });

  it('states `security: []` on operations without a requirement, and keeps the others', () => {
    const d = finishOpenApiDocument(
      doc({
        '/v1/health/live': { get: { responses: { '200': { description: 'Alive.' } } } },
        '/v1/users/@me': {
          get: { security: [{ sessionToken: [] }], responses: { '200': { description: 'Me.' } } },
        },
        '/v1/oauth2/token': {
          post: {
            security: [{}, { clientBasic: [] }],
            responses: { '200': { description: 'Token.' } },
          },
        },
      }),
    );
    expect(d.paths['/v1/health/live'].get!.security).toEqual([]);
    expect(d.paths['/v1/users/@me'].get!.security).toEqual([{ sessionToken: [] }]);
    expect(d.paths['/v1/oauth2/token'].post!.security).toEqual([{}, { clientBasic: [] }]);
  });
});
