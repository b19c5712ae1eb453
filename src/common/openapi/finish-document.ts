import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_TABLE, ErrorCode } from '../errors/error-code';
import { FIELD_ERROR_TABLE, FieldErrorCode } from '../errors/field-error-code';
import {
  ERROR_CODES_EXTENSION,
  FIELD_ERRORS_EXTENSION,
  MULTIPART_FILES_EXTENSION,
  NO_RATE_LIMIT_EXTENSION,
  QUERY_BY_HAND_EXTENSION,
  OAUTH_ERRORS_EXTENSION,
  type OAuthErrorName,
} from './api-errors.decorator';
import { PATH_PARAMETERS } from './path-parameters';
import { TAGS } from './tags';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

/** What every request may meet before its handler runs (ARCHITECTURE.md §3). */
const EVERY_ROUTE = [
  ErrorCode.IpBanned,
  ErrorCode.InternalServerError,
  ErrorCode.ServiceUnavailable,
];
/**
 * Body parsing and the JSON limits (body-parsers.ts, json-limits.ts); BAD_REQUEST is a body the
 * parser refuses otherwise (a `Content-Encoding` that does not inflate).
 */
const BODY = [
  ErrorCode.BadRequest,
  ErrorCode.InvalidJson,
  ErrorCode.JsonTooDeep,
  ErrorCode.JsonTooManyItems,
  ErrorCode.PayloadTooLarge,
  ErrorCode.UnsupportedMediaType,
];

const OAUTH_MESSAGES: Record<OAuthErrorName, string> = {
  invalid_request: 'A required parameter is missing or malformed.',
  invalid_client: 'Client authentication failed (answered with `WWW-Authenticate: Basic`).',
  invalid_grant: 'The code or refresh token is invalid, expired, used, or not this client’s.',
  unauthorized_client: 'This client may not use this grant type.',
  unsupported_grant_type: 'The grant type is not supported.',
  invalid_scope: 'The requested scope is invalid or exceeds the grant.',
  unsupported_token_type: 'This token type cannot be revoked here.',
};

interface Example {
  summary: string;
  value: Record<string, unknown>;
}

/**
 * The last step of building the OpenAPI document, in one place:
 * - every operation's error responses, generated from the codes it declares (`@ApiErrors`,
 *   `@Auth`) plus the ones the pipeline adds (credentials, body parsing, validation, rate
 *   limits, IP bans, outages), each with its status and message from `ERROR_TABLE` and one
 *   example per code — so Swagger UI shows what the route really answers;
 * - `security: []` on the public operations;
 * - tag descriptions, and path parameter descriptions by name.
 */
export function finishOpenApiDocument(doc: OpenAPIObject): OpenAPIObject {
  const usedTags = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      for (const t of op.tags ?? []) usedTags.add(t);
      // Every route has `@Auth`, which sets its security, or `@Public` (default deny, held by
      // routes.e2e-spec.ts): an operation with no requirement is public. `security: []` says so,
      // where an absent one would read as "forgotten" (and fall back to a global requirement).
      op.security ??= [];
      describePathParameters(op);
      describeMultipart(op);
      documentErrors(doc, op);
    }
  }
  doc.tags = TAGS.filter((t) => usedTags.has(t.name)).map((t) => ({ ...t }));
  for (const name of usedTags) {
    if (!TAGS.some((t) => t.name === name)) doc.tags.push({ name });
  }
  return doc;
}

/** The files a multipart body may carry (`files[0]` … `files[9]`, Discord's field names). */
const MULTIPART_FILES = 10;

/**
 * An `@AcceptsFiles` operation takes its JSON body also as `multipart/form-data`: the JSON as the
 * `payload_json` part and the files as `files[n]` parts (Discord's form), shown beside the JSON.
 */
function describeMultipart(op: OperationObject): void {
  const ext = op as OperationObject & Record<string, unknown>;
  const body = op.requestBody && !isRef(op.requestBody) ? op.requestBody : undefined;
  const json = body?.content['application/json'];
  if (ext[MULTIPART_FILES_EXTENSION] !== true || !body || !json) return;
  // Swagger UI pre-fills the form's JSON part with the JSON body's first example.
  const examples = Object.values(json.examples ?? {}) as Array<{ value?: unknown }>;
  const first: unknown = (json.example as unknown) ?? examples[0]?.value;
  const payloadJson = first === undefined ? '{}' : JSON.stringify(first);
  const properties: Record<string, SchemaObject> = {
    payload_json: {
      type: 'string',
      description:
        'The application/json body as JSON text; its `attachments[].id` names a file by the ' +
        '`n` of its `files[n]` part.',
      example: payloadJson,
    },
  };
  for (let n = 0; n < MULTIPART_FILES; n++) {
    properties[`files[${n}]`] = {
      type: 'string',
      format: 'binary',
      description:
        n === 0 ? 'A file (at most ATTACHMENT_MAX_BYTES, 25 MiB by default).' : undefined,
    };
  }
  body.content['multipart/form-data'] = {
    schema: { type: 'object', properties },
    encoding: { payload_json: { contentType: 'application/json' } },
    example: { payload_json: payloadJson },
  };
}

function describePathParameters(op: OperationObject): void {
  for (const p of op.parameters ?? []) {
    if (isRef(p) || p.in !== 'path' || p.description) continue;
    const known = PATH_PARAMETERS[p.name];
    if (known) p.description = known;
  }
}

function documentErrors(doc: OpenAPIObject, op: OperationObject): void {
  const ext = op as OperationObject & Record<string, unknown>;
  const declared = (ext[ERROR_CODES_EXTENSION] as ErrorCode[] | undefined) ?? [];
  const fieldSpecs = (ext[FIELD_ERRORS_EXTENSION] as string[] | undefined) ?? [];
  const oauth = (ext[OAUTH_ERRORS_EXTENSION] as OAuthErrorName[] | undefined) ?? [];
  const rateLimited = ext[NO_RATE_LIMIT_EXTENSION] !== true;

  const codes = new Set<ErrorCode>(declared);
  for (const c of EVERY_ROUTE) codes.add(c);
  if (rateLimited) codes.add(ErrorCode.RateLimited);
  if (isSecured(op)) codes.add(ErrorCode.Unauthorized);
  // A path parameter that is not valid percent-encoding (`%ZZ`): the router answers 400.
  if ((op.parameters ?? []).some((p) => !isRef(p) && p.in === 'path')) {
    codes.add(ErrorCode.BadRequest);
  }
  const body = op.requestBody && !isRef(op.requestBody) ? op.requestBody : undefined;
  // The RFC 6749 endpoints answer a body they cannot parse with `invalid_request` (body-parsers.ts).
  if (body && oauth.length === 0) {
    for (const c of BODY) codes.add(c);
    // The JSON limits apply to JSON bodies only.
    if (!body.content['application/json']) {
      codes.delete(ErrorCode.InvalidJson);
      codes.delete(ErrorCode.JsonTooDeep);
      codes.delete(ErrorCode.JsonTooManyItems);
    }
  }
  const validated =
    (body && oauth.length === 0) ||
    (ext[QUERY_BY_HAND_EXTENSION] !== true &&
      (op.parameters ?? []).some((p) => !isRef(p) && p.in === 'query')) ||
    fieldSpecs.length > 0;
  if (validated) codes.add(ErrorCode.InvalidFormBody);

  // Replace whatever error responses the decorators left with the generated ones.
  for (const status of Object.keys(op.responses)) {
    if (Number(status) >= 400) delete op.responses[status];
  }
  const byStatus = new Map<number, Map<string, Example>>();
  const add = (status: number, name: string, example: Example): void => {
    if (!byStatus.has(status)) byStatus.set(status, new Map());
    byStatus.get(status)!.set(name, example);
  };
  for (const code of [...codes].sort()) {
    const { status, message } = ERROR_TABLE[code];
    if (code === ErrorCode.InvalidFormBody) {
      for (const [name, ex] of formBodyExamples(doc, op, fieldSpecs)) add(status, name, ex);
      continue;
    }
    const value: Record<string, unknown> = { code, message };
    if (code === ErrorCode.RateLimited) Object.assign(value, { retry_after: 1.5, global: false });
    add(status, code, { summary: message, value });
  }
  for (const error of oauth) {
    const status = error === 'invalid_client' ? 401 : 400;
    add(status, error, {
      summary: OAUTH_MESSAGES[error],
      value: { error, error_description: OAUTH_MESSAGES[error] },
    });
  }

  for (const [status, examples] of [...byStatus].sort(([a], [b]) => a - b)) {
    const shapes = new Set(
      [...examples.values()].map((e) => ('error' in e.value ? 'oauth' : 'api')),
    );
    const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
    const schema =
      status === 429
        ? ref('RateLimitResponse')
        : shapes.size === 2
          ? { oneOf: [ref('ErrorResponse'), ref('OAuthErrorResponse')] }
          : ref(shapes.has('oauth') ? 'OAuthErrorResponse' : 'ErrorResponse');
    const response: ResponseObject = {
      description: [...examples].map(([name, e]) => `- \`${name}\`: ${e.summary}`).join('\n\n'),
      content: {
        'application/json': {
          schema,
          examples: Object.fromEntries(examples),
        },
      },
    };
    if (status === 429 || status === 503) response.headers = RETRY_HEADERS(status);
    op.responses[String(status)] = response;
  }
}

function formBodyExamples(
  doc: OpenAPIObject,
  op: OperationObject,
  specs: readonly string[],
): Array<[string, Example]> {
  const message = ERROR_TABLE[ErrorCode.InvalidFormBody].message;
  const errors = specs.map((spec) => {
    const i = spec.lastIndexOf(':');
    const path = spec.slice(0, i);
    const code = spec.slice(i + 1) as FieldErrorCode;
    return { path, code, message: FIELD_ERROR_TABLE[code].message };
  });
  if (errors.length === 0 || op.requestBody) {
    // The generic shape: a required field left out (or a bad query parameter).
    const field = firstField(doc, op);
    errors.unshift({
      path: field.path,
      code: field.code,
      message: FIELD_ERROR_TABLE[field.code].message,
    });
  }
  const seen = new Set<string>();
  return errors
    .filter((e) => !seen.has(`${e.path}:${e.code}`) && seen.add(`${e.path}:${e.code}`))
    .map((e) => [
      `${ErrorCode.InvalidFormBody}: ${e.code}`,
      {
        summary: `${e.path}: ${e.message}`,
        value: { code: ErrorCode.InvalidFormBody, message, errors: [e] },
      },
    ]);
}

/** A field to show in the generic validation example: a required body field, else a query one. */
function firstField(
  doc: OpenAPIObject,
  op: OperationObject,
): { path: string; code: FieldErrorCode } {
  const body = op.requestBody as RequestBodyObject | undefined;
  const media = body?.content['application/json'] ?? Object.values(body?.content ?? {})[0];
  const schema = resolve(doc, media?.schema);
  const required = schema?.required?.[0];
  if (required) return { path: required, code: FieldErrorCode.BaseTypeRequired };
  const prop = Object.keys(schema?.properties ?? {})[0];
  if (prop) return { path: prop, code: FieldErrorCode.BaseTypeInvalid };
  const query = (op.parameters ?? []).find(
    (p): p is ParameterObject => !isRef(p) && p.in === 'query',
  );
  if (query) return { path: query.name, code: FieldErrorCode.BaseTypeInvalid };
  return { path: 'root', code: FieldErrorCode.BaseTypeObject };
}

function resolve(
  doc: OpenAPIObject,
  schema: SchemaObject | ReferenceObject | undefined,
): SchemaObject | undefined {
  if (!schema) return undefined;
  if (!isRef(schema)) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const found = doc.components?.schemas?.[name];
  return found && !isRef(found) ? found : undefined;
}

function isSecured(op: OperationObject): boolean {
  const security = op.security ?? [];
  // `[{}]` (or an empty requirement among others) means "no credentials also works".
  return security.length > 0 && security.every((s) => Object.keys(s).length > 0);
}

function isRef(x: unknown): x is ReferenceObject {
  return typeof x === 'object' && x !== null && '$ref' in x;
}

const RETRY_HEADERS = (status: number): ResponseObject['headers'] => ({
  'Retry-After': {
    description: status === 429 ? 'Seconds to wait before retrying' : 'Seconds to wait (outages)',
    schema: { type: 'integer' },
  },
  ...(status === 429
    ? {
        'X-RateLimit-Limit': {
          description: 'Requests allowed in the current window',
          schema: { type: 'integer' },
        },
        'X-RateLimit-Remaining': {
          description: 'Requests remaining',
          schema: { type: 'integer' },
        },
        'X-RateLimit-Reset': {
          description: 'Unix timestamp (seconds) when the limit resets',
          schema: { type: 'integer' },
        },
        'X-RateLimit-Reset-After': {
          description: 'Seconds until the limit resets',
          schema: { type: 'number' },
        },
        'X-RateLimit-Bucket': {
          description: 'The bucket that was counted',
          schema: { type: 'string' },
        },
        'X-RateLimit-Scope': {
          description: '`user` (the caller’s own bucket), `shared` (a resource’s) or `global`',
          schema: { type: 'string', enum: ['user', 'shared', 'global'] },
        },
        'X-RateLimit-Global': {
          description: 'Present (`true`) only when the global limit was hit',
          schema: { type: 'boolean' },
        },
      }
    : {}),
});
