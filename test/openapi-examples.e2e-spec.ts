import { GuildRolesService } from '../src/modules/guilds/guild-roles.service';
import type { ParleyApp } from '../src/app.setup';
import { randomInt } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EXAMPLE } from '../src/common/openapi/examples';
import { createAdminKey, type TestAdminKey } from './helpers/admin';
import { createTestApp, http, unique } from './helpers/app';
import { registerUser } from './helpers/factories';
import { createGuild, createWebhook } from './helpers/guild-factories';
import {
  basicAuth,
  consentCode,
  createApplication,
  exchangeCode,
  installBot,
} from './helpers/oauth2-factories';

type Method = 'post' | 'patch' | 'put' | 'delete';

interface OpenApiOperation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{
    name: string;
    in: string;
    example?: unknown;
    schema?: { example?: unknown };
  }>;
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
}

interface BodyOperation {
  operationId: string;
  method: Method;
  template: string;
  security: string[];
  headers: Record<string, string>;
  /** Named examples of the first content type, in document order (the first is pre-filled). */
  examples: Array<[string, unknown]>;
}

/**
 * 4xx codes that are about the state of the data an example names (a ticket that was never
 * issued, a code nobody was texted, a factor the fresh account does not have), not about the
 * example's form. INVALID_FORM_BODY and the other validation codes are never in this list.
 */
const STATE_CODES = new Set([
  'INVALID_EMAIL_TOKEN',
  'INVALID_IP_AUTHORIZATION_TICKET',
  'INVALID_MFA_TICKET',
  'INVALID_MFA_CODE',
  'MFA_METHOD_UNAVAILABLE',
  'TOTP_NOT_ENABLED',
  'PHONE_REQUIRED',
  'INVALID_WEBAUTHN_RESPONSE',
  'SSO_NOT_ENABLED',
  'INVALID_SSO_STATE',
  // The example's fixed ids are from 2023: older than the 14 days bulk delete takes.
  'BULK_DELETE_TOO_OLD',
]);
const isStateCode = (code: unknown) =>
  typeof code === 'string' && (code.startsWith('UNKNOWN_') || STATE_CODES.has(code));
/** RFC 6749 errors about the grant (an unknown or spent code or token), not the request. */
const OAUTH_STATE_ERRORS = new Set(['invalid_grant']);

let phones = 0;
/** A fresh E.164 number (the database is shared with the other suites and earlier runs). */
function newPhone(): string {
  phones += 1;
  const n = (Date.now() % 1_000_000) * 100 + ((process.pid + phones) % 100);
  return `+1555${String(n).padStart(8, '0')}`;
}

/** Replaces every string equal to a key of `subs`, deeply. */
function substitute(value: unknown, subs: Map<string, string>): unknown {
  if (typeof value === 'string') return subs.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => substitute(v, subs));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substitute(v, subs)] as const),
    );
  }
  return value;
}

/**
 * Swagger UI is the console: "Try it out" pre-fills each request body with its first example,
 * so every example must be a body the route accepts. Every operation of the live document with a
 * request body is called with each of its named examples, as Swagger UI would send it (the
 * credential the operation's security names, header parameters' examples), on fixtures of its
 * own, with the example ids swapped for real ones: the answer is 2xx, or a 4xx about the state of
 * the data (e.g. a ticket nobody issued) — never a validation error of the example itself.
 */
describe('OpenAPI request-body examples', () => {
  let app: ParleyApp;
  let operations: BodyOperation[];
  let admin: TestAdminKey;

  beforeAll(async () => {
    app = await createTestApp({ env: { RATE_LIMITS: 'off' } });
    const doc = (await http(app).get('/docs/openapi.json')).body as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.requestBody !== undefined)
        .map(([method, op]) => {
          const [content] = Object.values(op.requestBody?.content ?? {});
          const examples: Array<[string, unknown]> = content?.examples
            ? Object.entries(content.examples).map(([name, e]) => [name, e.value])
            : content?.example !== undefined
              ? [['example', content.example]]
              : [];
          const headers = Object.fromEntries(
            (op.parameters ?? [])
              // Swagger UI pre-fills a parameter with its example (or its schema's).
              .map((p) => [p.name, p.in, p.example ?? p.schema?.example] as const)
              .filter(([, where, example]) => where === 'header' && typeof example === 'string')
              .map(([name, , example]) => [name, example as string]),
          );
          return {
            operationId: op.operationId,
            method: method as Method,
            template,
            security: (op.security ?? []).flatMap((s) => Object.keys(s).slice(0, 1)),
            headers,
            examples,
          };
        }),
    );
    admin = await createAdminKey(app, ['*']);
  });
  afterAll(() => app.close());

  it('gives every request body an example', () => {
    expect(operations.length).toBeGreaterThanOrEqual(70);
    const without = operations
      .filter((op) => op.examples.length === 0)
      .map((op) => `${op.method.toUpperCase()} ${op.template}`);
    expect(without).toEqual([]);
  });

  /** What one example call needs, created on first use: a fresh user and what they own. */
  class World {
    private memo = new Map<string, Promise<unknown>>();
    private once<T>(key: string, make: () => Promise<T>): Promise<T> {
      if (!this.memo.has(key)) this.memo.set(key, make());
      return this.memo.get(key) as Promise<T>;
    }
    user = () => this.once('user', () => registerUser(app, { password: EXAMPLE.password }));
    otherUser = () => this.once('other', () => registerUser(app));
    guild = () => this.once('guild', async () => createGuild(app, (await this.user()).token));
    webhook = () =>
      this.once('webhook', async () =>
        createWebhook(app, (await this.user()).token, (await this.guild()).channelId),
      );
    application = () =>
      this.once('application', async () =>
        createApplication(app, await this.user(), { redirect_uris: [EXAMPLE.redirectUri] }),
      );
    /** An authorization code for the example redirect URI (bound to the PKCE example pair). */
    code = (pkce = false) =>
      this.once('code', async () => {
        const { code } = await consentCode(app, await this.user(), await this.application(), {
          redirect_uri: EXAMPLE.redirectUri,
          ...(pkce ? { code_challenge: EXAMPLE.pkceChallenge, code_challenge_method: 'S256' } : {}),
        });
        return code;
      });
    tokens = () =>
      this.once('tokens', async () => {
        const client = await this.application();
        const res = await exchangeCode(app, client, await this.code(), {
          redirect_uri: EXAMPLE.redirectUri,
        });
        if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
        return res.body as { access_token: string; refresh_token: string };
      });
    /** A role of the guild besides @everyone (there is no role API: the row a bot install makes). */
    role = () =>
      this.once('role', async () => {
        const { guildId } = await this.guild();
        const id = (
          (BigInt(Date.now() - 1_420_070_400_000) << 22n) |
          BigInt(randomInt(1 << 22))
        ).toString();
        await app.get(DataSource).transaction((m) =>
          app.get(GuildRolesService).create(m, guildId, {
            id,
            name: 'Engineers',
            permissions: 0n,
            position: 1,
          }),
        );
        return id;
      });
    botInGuild = () =>
      this.once('botInGuild', async () =>
        installBot(app, await this.user(), await this.application(), (await this.guild()).guildId),
      );
    /**
     * An upload URL's PUT (upload_attachment) is signed in its query: the path and query of an
     * upload of the example's size, made by the example user.
     */
    async uploadPath(body: unknown): Promise<string> {
      const res = await http(app)
        .post(`/v1/channels/${(await this.guild()).channelId}/attachments`)
        .set('Authorization', (await this.user()).token)
        .send({
          files: [{ id: 0, filename: 'example.txt', file_size: Buffer.byteLength(String(body)) }],
        });
      if (res.status !== 200) throw new Error(`upload URL: ${res.status} ${res.text}`);
      const url = new URL(
        (res.body as { attachments: Array<{ upload_url: string }> }).attachments[0].upload_url,
      );
      return url.pathname + url.search;
    }
    handoffCode = () =>
      this.once('handoff', async () => {
        const res = await http(app).post('/v1/auth/handoff/initiate');
        return res.body.code as string;
      });

    /** The example's placeholder values that it uses, mapped to this world's real ones. */
    async substitutions(op: BodyOperation, example: unknown): Promise<Map<string, string>> {
      const text = JSON.stringify(example);
      const subs = new Map<string, string>();
      const swap = async (placeholder: string, real: () => Promise<string>) => {
        if (text.includes(JSON.stringify(placeholder))) subs.set(placeholder, await real());
      };
      const fresh = async () => `${unique('ex_')}@example.com`;
      if (op.operationId === 'register') await swap(EXAMPLE.email, fresh);
      else await swap(EXAMPLE.email, async () => (await this.user()).email);
      await swap(EXAMPLE.newEmail, fresh);
      await swap(EXAMPLE.phone, async () => newPhone());
      await swap(EXAMPLE.userId, async () => (await this.user()).userId);
      await swap(EXAMPLE.otherUserId, async () => (await this.otherUser()).userId);
      await swap(EXAMPLE.guildId, async () => (await this.guild()).guildId);
      await swap(EXAMPLE.roleId, () => this.role());
      await swap(EXAMPLE.channelId, async () => (await this.guild()).channelId);
      await swap(EXAMPLE.applicationId, async () => (await this.application()).id);
      await swap(EXAMPLE.clientSecret, async () => (await this.application()).clientSecret);
      await swap(EXAMPLE.sessionToken, async () => (await this.user()).token);
      await swap(EXAMPLE.handoffCode, () => this.handoffCode());
      await swap(EXAMPLE.oauthCode, () => this.code(text.includes(EXAMPLE.pkceVerifier)));
      await swap(EXAMPLE.accessToken, async () => (await this.tokens()).access_token);
      await swap(EXAMPLE.refreshToken, async () => (await this.tokens()).refresh_token);
      return subs;
    }

    async path(template: string): Promise<string> {
      // A guild's application commands need the application's bot in the guild.
      if (template.includes('/applications/{application_id}/guilds/{guild_id}/')) {
        await this.botInGuild();
      }
      let url = template;
      for (const [, name] of template.matchAll(/\{(\w+)\}/g)) {
        url = url.replace(`{${name}}`, await this.pathValue(name));
      }
      return url;
    }

    private async pathValue(name: string): Promise<string> {
      switch (name) {
        case 'guild_id':
          return (await this.guild()).guildId;
        case 'channel_id':
          return (await this.guild()).channelId;
        case 'webhook_id':
          return (await this.webhook()).id;
        case 'token':
          return (await this.webhook()).token;
        case 'id':
        case 'application_id':
          return (await this.application()).id;
        case 'user_id':
          return (await this.otherUser()).userId;
        default:
          // No fixture (e.g. a WebAuthn credential of a fresh account): an unknown id, a 404.
          return EXAMPLE.webauthnCredentialId;
      }
    }

    /** The Authorization header for the operation's first security scheme (none: public). */
    async authorization(op: BodyOperation, body: unknown): Promise<string | undefined> {
      const bodyCredentials = typeof body === 'object' && body !== null && 'client_secret' in body;
      for (const scheme of op.security) {
        switch (scheme) {
          case 'sessionToken':
            return (await this.user()).token;
          case 'botToken':
            return `Bot ${(await this.application()).botToken}`;
          case 'bearer':
            return `Bearer ${(await this.tokens()).access_token}`;
          case 'adminApiKey':
            return admin.header;
          case 'clientBasic': {
            // The body-credentials variant goes without (one client authentication per request).
            if (bodyCredentials) return undefined;
            const client = await this.application();
            return basicAuth(client.id, client.clientSecret);
          }
        }
      }
      return undefined;
    }
  }

  it('sends every named example and gets 2xx or a 4xx about the state of the data', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const op of operations) {
      for (const [name, example] of op.examples) {
        const world = new World();
        const label = `${op.operationId} example "${name}"`;
        try {
          const body = substitute(example, await world.substitutions(op, example));
          // Execute routes: with wait=true the answer is the posted message (204 = not rendered).
          const execute = op.operationId.startsWith('execute_');
          let url =
            op.operationId === 'upload_attachment'
              ? await world.uploadPath(body)
              : await world.path(op.template);
          if (execute) url += '?wait=true';
          let req = http(app)[op.method](url).set(op.headers);
          const authorization = await world.authorization(op, body);
          if (authorization) req = req.set('Authorization', authorization);
          const res = await req.send(body as object);
          sent += 1;
          const ok = execute
            ? res.status === 200
            : (res.status >= 200 && res.status < 300) ||
              (res.status >= 400 &&
                res.status < 500 &&
                (isStateCode(res.body?.code) || OAUTH_STATE_ERRORS.has(res.body?.error)));
          if (!ok) failures.push(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
        } catch (err) {
          failures.push(`${label}: fixture failed: ${(err as Error).message}`);
        }
      }
    }
    expect(sent).toBeGreaterThanOrEqual(operations.length);
    expect(failures).toEqual([]);
  });
});
