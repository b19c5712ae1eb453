import type { Type } from '@nestjs/common';
import { DiscoveryModule, Reflector } from '@nestjs/core';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ParleyApp } from '../src/app.setup';
import { AUTH_METADATA, PUBLIC_METADATA } from '../src/common/auth/auth.metadata';
import { ERROR_TABLE, ErrorCode } from '../src/common/errors/error-code';
import { createTestApp, http } from './helpers/app';
import {
  documentedRoutes,
  modelOf,
  propertyTypes,
  readByPlugin,
  type DocumentedRoute,
} from './helpers/documented-routes';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

interface Example {
  summary?: string;
  value?: Record<string, unknown>;
}

interface Schema {
  $ref?: string;
  type?: string;
  items?: Schema;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
}

interface Media {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, Example>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; description?: string; required?: boolean }>;
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
  components: { schemas: Record<string, Schema> };
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
 * What the ValidationPipe checks on a class, inherited properties included: property → whether
 * it is required (one with `@IsOptional` or `@ValidateIf` may be absent) and whether the pipe
 * validates its value as a class of its own (`@ValidateNested`).
 */
function validatedProperties(cls: Type): Map<string, { required: boolean; nested: boolean }> {
  const props = new Map<string, { required: boolean; nested: boolean }>();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false)) {
    if (!m.propertyName) continue;
    const prop = props.get(m.propertyName) ?? { required: true, nested: false };
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) prop.required = false;
    if (m.type === ValidationTypes.NESTED_VALIDATION) prop.nested = true;
    props.set(m.propertyName, prop);
  }
  return props;
}

/** The component a schema points to: `$ref`, an array of it, or a nullable `allOf: [$ref]`. */
function refOf(schema: Schema | undefined): string | undefined {
  if (!schema) return undefined;
  if (schema.type === 'array') return refOf(schema.items);
  if (schema.allOf?.length === 1) return refOf(schema.allOf[0]);
  return schema.$ref;
}

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
    app = await createTestApp({ imports: [DiscoveryModule] });
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

  const findOperation = (route: DocumentedRoute): Operation | undefined =>
    operations.find(({ op }) => op.operationId === route.operationId)?.op;

  // A DTO the Swagger CLI plugin does not read (its file does not end in .dto.ts, .response.ts or
  // .entity.ts: nest-cli.json) is documented as an empty object: clients and Swagger UI then send
  // nothing, and linters reject every example. So every schema a route shows is compared with
  // the class behind it: what the ValidationPipe checks is what the document says.
  it('documents every request and response class as the ValidationPipe reads it', () => {
    const problems: string[] = [];
    const checked = new Set<string>();
    const schemas = doc.components.schemas;

    const checkModel = (
      where: string,
      schema: Schema | undefined,
      cls: Type,
      role: 'request' | 'response',
    ): void => {
      const ref = refOf(schema);
      if (ref !== `#/components/schemas/${cls.name}`) {
        problems.push(`${where}: shows ${ref ?? 'no schema'} for ${cls.name}`);
        return;
      }
      if (checked.has(`${role} ${cls.name}`)) return;
      checked.add(`${role} ${cls.name}`);
      if (!readByPlugin(cls)) {
        problems.push(
          `${cls.name}: not compiled by the Swagger CLI plugin (name its file *.dto.ts or *.response.ts)`,
        );
      }
      const component = schemas[cls.name];
      const documented = component.properties ?? {};
      const required = new Set(component.required ?? []);
      const validated = validatedProperties(cls);
      for (const [prop, { required: isRequired }] of validated) {
        if (!(prop in documented)) problems.push(`${cls.name}.${prop}: validated, not documented`);
        else if (isRequired && !required.has(prop))
          problems.push(`${cls.name}.${prop}: required (no @IsOptional), not listed in required`);
        else if (!isRequired && required.has(prop))
          problems.push(
            `${cls.name}.${prop}: optional (@IsOptional/@ValidateIf), listed in required`,
          );
      }
      if (role === 'request') {
        for (const prop of Object.keys(documented)) {
          if (!validated.has(prop))
            problems.push(`${cls.name}.${prop}: documented, not validated (the pipe strips it)`);
        }
      }
      const types = propertyTypes(cls);
      for (const [prop, propSchema] of Object.entries(documented)) {
        const nested = modelOf(types.get(prop));
        // A request object the pipe does not validate as a class is read by hand (embeds/embed.ts).
        if (!nested || (role === 'request' && !validated.get(prop)?.nested)) continue;
        checkModel(`${cls.name}.${prop}`, propSchema, nested, role);
      }
    };

    const routes = documentedRoutes(app);
    expect(routes.length).toBe(operations.length);
    for (const route of routes) {
      const op = findOperation(route);
      if (!op) {
        problems.push(`${route.label}: no operation ${route.operationId} in the document`);
        continue;
      }
      if (route.body) {
        const content = Object.entries(op.requestBody?.content ?? {});
        if (content.length === 0)
          problems.push(`${route.label}: validates a body it does not show`);
        for (const [type, media] of content) {
          if (type === 'multipart/form-data') {
            // Discord's form: the JSON body as `payload_json`, files as `files[n]` (binary).
            const props = (media.schema as { properties?: Record<string, { format?: string }> })
              .properties;
            if (!props?.payload_json || props['files[0]']?.format !== 'binary')
              problems.push(`${route.label}: multipart body without payload_json and files[n]`);
            continue;
          }
          checkModel(`${route.label} body (${type})`, media.schema, route.body, 'request');
        }
      }
      if (route.query) {
        for (const [prop, { required: isRequired }] of validatedProperties(route.query)) {
          const param = op.parameters?.find((p) => p.in === 'query' && p.name === prop);
          if (!param) problems.push(`${route.label}: query ${prop} validated, not documented`);
          else if (isRequired !== (param.required === true))
            problems.push(`${route.label}: query ${prop} required is ${isRequired} in the DTO`);
        }
      }
      for (const { status, type } of route.responses) {
        const schema = op.responses[status]?.content?.['application/json']?.schema;
        checkModel(`${route.label} ${status}`, schema, type, 'response');
      }
    }
    expect(problems).toEqual([]);
    // The walk found the DTOs (a broken walk would check nothing and pass).
    expect([...checked].filter((k) => k.startsWith('request ')).length).toBeGreaterThan(40);
    expect([...checked].filter((k) => k.startsWith('response ')).length).toBeGreaterThan(60);
  });

  // `security: []` is how OpenAPI says "no credentials" (finish-document.ts): without it a reader
  // (or a linter) cannot tell a public route from one whose requirement was forgotten.
  it('states the security of every operation: none exactly on the @Public routes', () => {
    const reflector = app.get(Reflector);
    const problems: string[] = [];
    for (const route of documentedRoutes(app)) {
      const op = findOperation(route);
      const targets = [route.handler as () => void, route.controller];
      const auth = reflector.getAllAndOverride<unknown>(AUTH_METADATA, targets) !== undefined;
      const isPublic = reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets) === true;
      if (!op?.security) problems.push(`${route.label}: no security`);
      else if (auth && !isSecured(op)) problems.push(`${route.label}: @Auth but not secured`);
      else if (!auth && !isPublic) problems.push(`${route.label}: neither @Auth nor @Public`);
      else if (!auth && isSecured(op))
        problems.push(`${route.label}: @Public but requires a credential`);
    }
    expect(problems).toEqual([]);
  });
});
