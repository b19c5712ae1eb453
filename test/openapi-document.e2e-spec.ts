import type { ParleyApp } from '../src/app.setup';
import { ERROR_TABLE, ErrorCode } from '../src/common/errors/error-code';
import { createTestApp, http } from './helpers/app';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

interface Example {
  summary?: string;
  value?: Record<string, unknown>;
}

interface Media {
  schema?: { $ref?: string };
  example?: unknown;
  examples?: Record<string, Example>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; description?: string }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description?: string; content?: Record<string, Media> }>;
  'x-error-codes'?: string[];
  'x-oauth-errors'?: string[];
  'x-field-errors'?: string[];
  'x-rate-limit-exempt'?: boolean;
}

interface Doc {
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
}

/** RFC 6749 §5.2 (and RFC 7009 §2.2.1) `error` values, and the status each is answered with. */
const OAUTH_ERRORS: Record<string, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  unsupported_token_type: 400,
};

/** What the body parsers answer (only where there is a body to parse). */
const BODY_CODES = new Set<string>([
  ErrorCode.BadRequest,
  ErrorCode.InvalidJson,
  ErrorCode.JsonTooDeep,
  ErrorCode.JsonTooManyItems,
  ErrorCode.PayloadTooLarge,
  ErrorCode.UnsupportedMediaType,
]);
/** What every route may answer whatever it declares (finish-document.ts). */
const EVERY_ROUTE = new Set<string>([
  ErrorCode.IpBanned,
  ErrorCode.InternalServerError,
  ErrorCode.ServiceUnavailable,
]);

const isSecured = (op: Operation) =>
  (op.security ?? []).length > 0 && op.security!.every((s) => Object.keys(s).length > 0);
const schemes = (op: Operation) => new Set((op.security ?? []).flatMap((s) => Object.keys(s)));

/**
 * The live document Swagger UI renders: every operation says what it does, every parameter and
 * response is described, and every error example is one the route really answers, in the shape
 * and with the status the server answers it.
 */
describe('OpenAPI document', () => {
  let app: ParleyApp;
  let doc: Doc;
  const operations: Array<{ name: string; op: Operation }> = [];

  beforeAll(async () => {
    app = await createTestApp();
    doc = (await http(app).get('/docs/openapi.json')).body as Doc;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (op) operations.push({ name: `${method.toUpperCase()} ${path}`, op });
      }
    }
  });
  afterAll(() => app.close());

  /** Runs `check` on every operation and expects no problem, listing them all when some. */
  const everyOperation = (check: (op: Operation) => string[]) => {
    expect(operations.length).toBeGreaterThan(100);
    const problems = operations.flatMap(({ name, op }) => check(op).map((p) => `${name}: ${p}`));
    expect(problems).toEqual([]);
  };

  it('has no Authorization header parameter (the security schemes send it)', () => {
    everyOperation((op) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'header' && p.name.toLowerCase() === 'authorization')
        .map(() => 'declares an Authorization header parameter'),
    );
  });

  it('describes every path parameter', () => {
    everyOperation((op) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'path' && !p.description?.trim())
        .map((p) => `path parameter ${p.name} has no description (path-parameters.ts)`),
    );
  });

  it('gives every operation a plain-text summary', () => {
    everyOperation((op) => {
      if (!op.summary?.trim()) return ['no summary'];
      return op.summary.includes('`') ? [`backticks in the summary: ${op.summary}`] : [];
    });
  });

  it('declares every tag it uses, with a description', () => {
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    everyOperation((op) =>
      (op.tags ?? []).length === 0
        ? ['no tag']
        : op.tags!.filter((t) => !declared.get(t)?.trim()).map((t) => `tag ${t} is not described`),
    );
  });

  it('describes every success response', () => {
    everyOperation((op) =>
      Object.entries(op.responses)
        .filter(([status, r]) => /^2/.test(status) && !r.description?.trim())
        .map(([status]) => `${status} has no description`),
    );
  });

  it('shows every error response with examples in the shape and status the server answers', () => {
    everyOperation((op) => {
      const problems: string[] = [];
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content?.['application/json'];
        const examples = Object.entries(media?.examples ?? {});
        if (examples.length === 0) {
          problems.push(`${status} has no examples`);
          continue;
        }
        const oauth = media?.schema?.$ref?.endsWith('/OAuthErrorResponse') ?? false;
        for (const [name, { value }] of examples) {
          if (oauth) {
            const error = String(value?.error);
            if (!(error in OAUTH_ERRORS)) problems.push(`${status} ${name}: not an RFC 6749 error`);
            else if (OAUTH_ERRORS[error] !== Number(status))
              problems.push(`${status} ${name}: ${error} is answered with ${OAUTH_ERRORS[error]}`);
            continue;
          }
          const code = String(value?.code);
          if (!(code in ERROR_TABLE)) problems.push(`${status} ${name}: unknown code ${code}`);
          else if (ERROR_TABLE[code as ErrorCode].status !== Number(status))
            problems.push(
              `${status} ${name}: ${code} is answered with ${ERROR_TABLE[code as ErrorCode].status}`,
            );
        }
      }
      return problems;
    });
  });

  it('shows only the error codes the operation answers (declared, or added by the pipeline)', () => {
    everyOperation((op) => {
      const problems: string[] = [];
      const declared = new Set(op['x-error-codes'] ?? []);
      const oauthDeclared = new Set(op['x-oauth-errors'] ?? []);
      const hasBody = op.requestBody !== undefined;
      const hasQuery = (op.parameters ?? []).some((p) => p.in === 'query');
      const validated = hasBody || hasQuery || (op['x-field-errors'] ?? []).length > 0;
      for (const response of Object.values(op.responses)) {
        for (const { value } of Object.values(
          response.content?.['application/json']?.examples ?? {},
        )) {
          if (typeof value?.error === 'string') {
            if (!oauthDeclared.has(value.error)) problems.push(`${value.error} is not declared`);
            continue;
          }
          const code = String(value?.code) as ErrorCode;
          if (code === ErrorCode.Unauthorized) {
            if (!isSecured(op))
              problems.push('UNAUTHORIZED on a route without a required credential');
          } else if (code === ErrorCode.MissingAcl) {
            if (!schemes(op).has('adminApiKey')) problems.push('MISSING_ACL off the admin routes');
          } else if (code === ErrorCode.BadRequest) {
            // The body parser, or a path parameter that is not valid percent-encoding.
            const pathParams = (op.parameters ?? []).some((p) => p.in === 'path');
            if (!hasBody && !pathParams && !declared.has(code))
              problems.push('BAD_REQUEST on a route without a body or path parameters');
          } else if (BODY_CODES.has(code)) {
            if (!hasBody) problems.push(`${code} on a route without a request body`);
          } else if (code === ErrorCode.InvalidFormBody) {
            if (!validated) problems.push('INVALID_FORM_BODY on a route with nothing to validate');
          } else if (code === ErrorCode.RateLimited) {
            if (op['x-rate-limit-exempt'])
              problems.push('RATE_LIMITED on a route exempt from limits');
          } else if (!EVERY_ROUTE.has(code) && !declared.has(code)) {
            problems.push(`${code} is shown but not declared (x-error-codes)`);
          }
        }
      }
      return [...new Set(problems)];
    });
  });

  it('gives every request body an example (Swagger UI pre-fills "Try it out" with it)', () => {
    everyOperation((op) =>
      Object.entries(op.requestBody?.content ?? {})
        .filter(([, media]) => media.example === undefined && !media.examples)
        .map(([type]) => `${type} request body has no example`),
    );
  });
});
