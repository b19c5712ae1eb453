import type { ParleyApp } from '../../src/app.setup';
import { createHash, randomBytes } from 'node:crypto';
import { http, unique } from './app';
import type { TestUser } from './factories';

export const REDIRECT = 'https://client.example/callback';

export interface TestApplication {
  id: string;
  clientSecret: string;
  botToken: string;
  botUserId: string;
  body: Record<string, unknown>;
}

/** Creates an application for `owner` through the API. */
export async function createApplication(
  app: ParleyApp,
  owner: TestUser,
  overrides: Record<string, unknown> = {},
): Promise<TestApplication> {
  const res = await http(app)
    .post('/v1/oauth2/applications')
    .set('Authorization', owner.token)
    .send({ name: unique('App '), redirect_uris: [REDIRECT], ...overrides });
  if (res.status !== 200) throw new Error(`create app: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as {
    id: string;
    client_secret: string;
    bot: { id: string; token: string };
  };
  return {
    id: body.id,
    clientSecret: body.client_secret,
    botToken: body.bot.token,
    botUserId: body.bot.id,
    body: res.body as Record<string, unknown>,
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Runs the consent as `user` and returns the code from the redirect. */
export async function consentCode(
  app: ParleyApp,
  user: TestUser,
  client: TestApplication,
  extra: Record<string, unknown> = {},
): Promise<{ code: string; state: string | null; redirectTo: string }> {
  const res = await http(app)
    .post('/v1/oauth2/authorize/consent')
    .set('Authorization', user.token)
    .send({
      client_id: client.id,
      scope: 'identify email',
      redirect_uri: REDIRECT,
      response_type: 'code',
      state: 'st4te',
      ...extra,
    });
  if (res.status !== 200) throw new Error(`consent: ${res.status} ${JSON.stringify(res.body)}`);
  const url = new URL((res.body as { redirect_to: string }).redirect_to);
  return {
    code: url.searchParams.get('code') ?? '',
    state: url.searchParams.get('state'),
    redirectTo: url.toString(),
  };
}

export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Code → tokens with body credentials (form-encoded). */
export async function exchangeCode(
  app: ParleyApp,
  client: TestApplication,
  code: string,
  extra: Record<string, string> = {},
) {
  return http(app)
    .post('/v1/oauth2/token')
    .type('form')
    .send({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.id,
      client_secret: client.clientSecret,
      ...extra,
    });
}

/** A user authorizes `client` and the client exchanges the code: returns the token response. */
export async function issueTokens(
  app: ParleyApp,
  user: TestUser,
  client: TestApplication,
  scope = 'identify email',
): Promise<{ access_token: string; refresh_token: string; scope: string }> {
  const { code } = await consentCode(app, user, client, { scope });
  const res = await exchangeCode(app, client, code);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { access_token: string; refresh_token: string; scope: string };
}

/** VIEW_CHANNEL, SEND_MESSAGES and READ_MESSAGE_HISTORY: what a bot is usually installed with. */
export const VIEW_AND_SEND = String((1 << 10) | (1 << 11) | (1 << 16));

/** Installs `client`'s bot in the guild through the consent flow, as the guild's owner. */
export async function installBot(
  app: ParleyApp,
  owner: TestUser,
  client: TestApplication,
  guildId: string,
  permissions = VIEW_AND_SEND,
): Promise<void> {
  const res = await http(app)
    .post('/v1/oauth2/authorize/consent')
    .set('Authorization', owner.token)
    .send({ client_id: client.id, scope: 'bot', guild_id: guildId, permissions });
  if (res.status !== 200) throw new Error(`install: ${res.status} ${JSON.stringify(res.body)}`);
}

/** ApplicationFlags an owner may set: the privileged intents a bot may ask for. */
export const PRESENCE_INTENT_FLAG = 1 << 13;
export const MEMBERS_INTENT_FLAG = 1 << 15;
export const MESSAGE_CONTENT_INTENT_FLAG = 1 << 19;

/** The owner sets the application's flags (its privileged intents) through the API. */
export async function setApplicationFlags(
  app: ParleyApp,
  owner: TestUser,
  client: TestApplication,
  flags: number,
): Promise<void> {
  const res = await http(app)
    .patch(`/v1/oauth2/applications/${client.id}`)
    .set('Authorization', owner.token)
    .send({ flags });
  if (res.status !== 200) throw new Error(`flags: ${res.status} ${JSON.stringify(res.body)}`);
}
