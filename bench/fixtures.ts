/**
 * Setup helpers for bench/targets.ts: accounts, guilds, webhooks and OAuth2 clients made through
 * the public API of the server under test, and the work of the ceilings (raw argon2id verify,
 * raw message INSERT) that HTTP rows are compared with in the same run.
 */
import definitions from '@octokit/webhooks-examples';
import { hash, randomBytes } from 'node:crypto';
import { transformChatCompat } from '../src/modules/webhooks/transformers/chatcompat.transformer';
import type { MessageDraft } from '../src/modules/guilds/embeds/embed';
import { transformRepoHost } from '../src/modules/webhooks/transformers/repohost.transformer';
import type { CeilingWork } from './ceiling';
import type { BenchContext } from './targets';

let seq = 0;
const uniqueName = (prefix: string) =>
  `${prefix}${process.pid.toString(36)}_${Date.now().toString(36)}_${(seq++).toString(36)}`;

export interface BenchUser {
  email: string;
  password: string;
  token: string;
  userId: string;
}

/** Registers a fresh account through the API (one argon2 hash). */
export async function newUser(ctx: BenchContext): Promise<BenchUser> {
  const username = uniqueName('b_').slice(0, 32);
  const email = `${username}@bench.invalid`;
  const password = 'correct-horse-battery-staple';
  const res = await ctx.call<{ token: string; user_id: string }>('POST', '/v1/auth/register', {
    body: { consent: true, date_of_birth: '1990-01-01', email, password, username },
  });
  return { email, password, token: res.token, userId: res.user_id };
}

export interface BenchAdminKey {
  key: string;
  userId: string;
}

/**
 * An admin key with ACL `*` for a fresh account, made the way `admin:bootstrap` makes one (the
 * user promoted, the key's SHA-256 stored), written directly: no key exists yet to mint one with.
 */
export async function newAdminKey(ctx: BenchContext): Promise<BenchAdminKey> {
  const user = await newUser(ctx);
  await ctx.query(`UPDATE users SET acls = '{*}' WHERE id = $1`, [user.userId]);
  const id = (
    (BigInt(Date.now() - 1_420_070_400_000) << 22n) |
    BigInt(randomBytes(2).readUInt16BE() & 0x3fffff)
  ).toString();
  const key = `adm_${id}_${randomBytes(32).toString('base64url')}`;
  await ctx.query(
    `INSERT INTO admin_api_keys (id, user_id, name, token_hash, acls) VALUES ($1, $2, 'bench', $3, '{*}')`,
    [id, user.userId, hash('sha256', key, 'buffer')],
  );
  // The owner's row just changed: for 2 s no instance caches credentials tagged with that user.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  return { key, userId: user.userId };
}

/** IP bans the ban check runs against (TEST-NET-2/3 ranges and a documentation IPv6 prefix). */
export const BENCH_IP_BANS = 1_000;

/**
 * Seeds BENCH_IP_BANS IP bans once: none of them covers the loopback bench client. A change to
 * the ban list makes every instance drop its cached decisions and cache none for 2 s (the
 * tombstone that covers notifications still in flight), so after seeding wait that out: the
 * rows measure steady traffic, not the moment after an admin's change.
 */
export async function seedIpBans(ctx: BenchContext): Promise<void> {
  const [{ n }] = await ctx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ip_bans WHERE reason = 'bench'`,
  );
  if (n >= BENCH_IP_BANS) return;
  await ctx.query(
    `INSERT INTO ip_bans (id, range, reason)
     SELECT 9000000000000000000 + n, ('2001:db8:' || to_hex(n) || '::/48')::cidr, 'bench'
       FROM generate_series(1, $1::int) AS n
     ON CONFLICT DO NOTHING`,
    [BENCH_IP_BANS],
  );
  await new Promise((resolve) => setTimeout(resolve, 2_500));
}

/** `n` fresh accounts, registered `concurrency` at a time (argon2 runs on the server's pool). */
export async function newUsers(
  ctx: BenchContext,
  n: number,
  concurrency = 8,
): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next += 1;
      users.push(await newUser(ctx));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return users;
}

export interface BenchWebhook {
  id: string;
  token: string;
  name: string;
  channelId: string;
}

/** A new user, a guild of theirs and a webhook on its `general` channel. */
export async function newWebhook(ctx: BenchContext): Promise<BenchWebhook> {
  const { token } = await newUser(ctx);
  const auth = { authorization: token };
  const guild = await ctx.call<{ id: string }>('POST', '/v1/guilds', {
    headers: auth,
    body: { name: uniqueName('bench ') },
    expect: 201,
  });
  const channels = await ctx.call<Array<{ id: string; name: string }>>(
    'GET',
    `/v1/guilds/${guild.id}/channels`,
    { headers: auth },
  );
  const general = channels.find((c) => c.name === 'general') ?? channels[0];
  if (!general) throw new Error(`guild ${guild.id} has no channel`);
  const name = 'Bench hook';
  const hook = await ctx.call<{ id: string; token: string }>(
    'POST',
    `/v1/channels/${general.id}/webhooks`,
    { headers: auth, body: { name }, expect: 201 },
  );
  return { id: hook.id, token: hook.token, name, channelId: general.id };
}

// ---------------------------------------------------------------- payloads

/** A Slack-style incoming-webhook body: text plus one attachment with fields. */
export const CHATCOMPAT_BODY = {
  text: 'Deploy of <https://example.com/deploys/42|parley-api #42> finished',
  username: 'deploy-bot',
  attachments: [
    {
      fallback: 'Deploy finished',
      color: 'good',
      title: 'parley-api #42',
      title_link: 'https://example.com/deploys/42',
      text: 'All 312 checks passed in 4 m 12 s.',
      fields: [
        { title: 'Environment', value: 'production', short: true },
        { title: 'Commit', value: '`1a2b3c4`', short: true },
      ],
      footer: 'deploy-bot',
      ts: 1760000000,
    },
  ],
};

type Payload = Record<string, unknown>;

/** A real GitHub push delivery with commits, from @octokit/webhooks-examples. */
export const PUSH_PAYLOAD: Payload = (() => {
  const push = definitions.find((d) => d.name === 'push');
  const example = (push?.examples as Payload[] | undefined)?.find(
    (e) => Array.isArray(e.commits) && e.commits.length > 0,
  );
  if (!example) throw new Error('@octokit/webhooks-examples has no push example with commits');
  return example;
})();

/** The message the app builds from CHATCOMPAT_BODY (same transformer). */
export function chatCompatDraft(): MessageDraft {
  const draft = transformChatCompat(CHATCOMPAT_BODY);
  if (!draft) throw new Error('CHATCOMPAT_BODY renders no message');
  return draft;
}

/** The message the app builds from PUSH_PAYLOAD (same transformer). */
export function pushDraft(): MessageDraft {
  const draft = transformRepoHost('push', PUSH_PAYLOAD);
  if (!draft) throw new Error('PUSH_PAYLOAD renders no message');
  return draft;
}

// ---------------------------------------------------------------- ceilings

/**
 * argon2.verify with the app's own parameters: the hash the app stored when it registered a
 * user, and that user's password — the ceiling cannot drift from what login does.
 */
export async function argon2Work(ctx: BenchContext): Promise<CeilingWork> {
  const user = await newUser(ctx);
  const rows = await ctx.query<{ password_hash: string }>(
    'SELECT password_hash FROM users WHERE id = $1',
    [user.userId],
  );
  const hash = rows[0]?.password_hash;
  if (!hash?.startsWith('$argon2')) throw new Error(`user ${user.userId} has no argon2 hash`);
  return { kind: 'argon2', hash, password: user.password };
}

/**
 * A plain INSERT of the message row the app writes for `draft` (same columns, values, jsonb
 * embeds and RETURNING list) through a pg.Pool of the app's default size (DATABASE_POOL_SIZE 10).
 * What it leaves out is the webhook check the app folds into its INSERT, plus everything above
 * the driver.
 */
export async function insertWork(ctx: BenchContext, draft: MessageDraft): Promise<CeilingWork> {
  const hook = await newWebhook(ctx);
  return {
    kind: 'insert',
    databaseUrl: ctx.databaseUrl,
    poolSize: 10,
    webhook: { id: hook.id, channelId: hook.channelId, name: hook.name },
    draft,
  };
}

// ---------------------------------------------------------------- OAuth2

export interface BenchOAuthClient {
  clientId: string;
  clientSecret: string;
  accessToken: string;
}

/**
 * An application, a user's consent and a token exchange, all through the API: what an
 * integrator's client holds after the authorization-code flow.
 */
export async function newOAuthClient(ctx: BenchContext): Promise<BenchOAuthClient> {
  const user = await newUser(ctx);
  const redirectUri = 'https://bench.invalid/callback';
  const app = await ctx.call<{ id: string; client_secret: string }>(
    'POST',
    '/v1/oauth2/applications',
    {
      headers: { authorization: user.token },
      body: { name: uniqueName('Bench app '), redirect_uris: [redirectUri] },
    },
  );
  const consent = await ctx.call<{ redirect_to: string }>('POST', '/v1/oauth2/authorize/consent', {
    headers: { authorization: user.token },
    body: {
      client_id: app.id,
      scope: 'identify email',
      redirect_uri: redirectUri,
      response_type: 'code',
      state: 'bench',
    },
  });
  const code = new URL(consent.redirect_to).searchParams.get('code');
  if (!code) throw new Error(`consent gave no code: ${consent.redirect_to}`);
  const tokens = await ctx.call<{ access_token: string }>('POST', '/v1/oauth2/token', {
    body: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: app.id,
      client_secret: app.client_secret,
    },
  });
  return { clientId: app.id, clientSecret: app.client_secret, accessToken: tokens.access_token };
}
