import definitions from '@octokit/webhooks-examples';
import type { ParleyApp } from '../../src/app.setup';
import { createHmac, randomBytes } from 'node:crypto';
import { createTestApp, http, unique } from '../helpers/app';
import { createAdminKey } from '../helpers/admin';
import { lastMail, mailToken } from '../helpers/auth-helpers';
import { registerUser, type TestUser } from '../helpers/factories';
import { createGuild, createWebhook, type TestWebhook } from '../helpers/guild-factories';
import { send, type Reply } from '../helpers/http-client';
import { enableTotp } from '../helpers/mfa';
import {
  basicAuth,
  consentCode,
  createApplication,
  exchangeCode,
} from '../helpers/oauth2-factories';
import { secretNeedles } from '../helpers/secret-scan';

/**
 * Security finding 8: credentials reached the request log (an archive link's `signature`, a webhook
 * token behind `/v1/%77ebhooks/…` or `/v1//webhooks/…`). The real flows run against an app whose
 * every log line is captured, the test keeps every secret the server hands out or a client
 * sends, and no line may hold any of them in any encoding the secret scan knows.
 */
describe.each(['info', 'trace'])('secrets in the log (LOG_LEVEL=%s)', (level) => {
  let app: ParleyApp;
  let port: number;
  const lines: string[] = [];
  /** label → secret; every secret handed out or sent so far. */
  const secrets = new Map<string, string>();

  const keep = (label: string, value: unknown): string => {
    if (typeof value !== 'string' || value.length < 8) {
      throw new Error(`${label}: expected a secret, got ${JSON.stringify(value)}`);
    }
    secrets.set(label, value);
    return value;
  };

  /** A request over a real socket, the path sent byte for byte; its request id for the log. */
  const sentIds: string[] = [];
  const raw = async (
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Reply & { reqId: string }> => {
    const reqId = `logscan-${level}-${sentIds.length + 1}`;
    sentIds.push(reqId);
    const res = await send({
      port,
      method,
      path,
      body: options.body,
      headers: { 'X-Request-Id': reqId, ...options.headers },
    });
    return { ...res, reqId };
  };

  /** The request log line of a request id (waits for it: it is written after the response). */
  async function requestLine(reqId: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      for (const line of lines) {
        if (!line.includes(`"reqId":"${reqId}"`)) continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.msg === 'request') return parsed;
      }
      if (Date.now() > deadline) throw new Error(`no request line for ${reqId}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Every (secret, line) pair where a line holds a secret, raw, decoded or re-encoded. */
  async function leaks(): Promise<string[]> {
    // A last request whose line is written after every earlier one's.
    await requestLine((await raw('GET', '/v1/users/@me')).reqId);
    const found: string[] = [];
    for (const [label, secret] of secrets) {
      // The secret part of a compound credential on its own too (`adm_<id>_<secret>`, `<id>.<secret>`).
      const texts = [secret, ...secret.split(/[._]/).filter((part) => part.length >= 16)];
      const needles = secretNeedles(
        texts,
        texts.filter((t) => /^[A-Za-z0-9_-]{16,}$/.test(t)),
      );
      for (const line of lines) {
        const hay = haystacks(line);
        const needle = [...needles].find((n) => hay.some((h) => h.includes(n)));
        if (needle) found.push(`${label} (as "${needle}") in: ${line.trim()}`);
      }
    }
    return found;
  }

  beforeAll(async () => {
    app = await createTestApp({
      env: { LOG_LEVEL: level, TRUST_PROXY: 'on', IP_AUTHORIZATION: 'on' },
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => app?.close());

  it('register, login, e-mail links (verify, forgot/reset), sessions in Authorization', async () => {
    const password = keep('password', `Pw-${randomBytes(12).toString('base64url')}`);
    const user = await registerUser(app, { password });
    keep('registration session', user.token);
    const login = await http(app).post('/v1/auth/login').send({ email: user.email, password });
    expect(login.status).toBe(200);
    keep('login session', login.body.token);
    const wrong = keep('wrong password', `Wrong-${randomBytes(12).toString('base64url')}`);
    const refused = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: wrong });
    expect(refused.status).toBe(400);
    expect(
      (await http(app).get('/v1/users/@me').set('Authorization', login.body.token)).status,
    ).toBe(200);

    const verify = keep('verify token', mailToken(app, user.email, 'verify'));
    expect((await http(app).post('/v1/auth/verify').send({ token: verify })).status).toBe(204);
    // A client that puts the link's token in the query (already spent: 400).
    const inQuery = await raw('POST', `/v1/auth/verify?token=${verify}`, {
      body: { token: verify },
    });
    expect(inQuery.status).toBe(400);

    expect((await http(app).post('/v1/auth/forgot').send({ email: user.email })).status).toBe(204);
    const reset = keep('reset token', mailToken(app, user.email, 'reset'));
    const newPassword = keep('new password', `New-${randomBytes(12).toString('base64url')}`);
    const after = await http(app)
      .post('/v1/auth/reset')
      .send({ token: reset, password: newPassword });
    expect(after.status).toBe(200);
    keep('session after reset', after.body.token);

    expect(await leaks()).toEqual([]);
  });

  it('IP authorization: the mailed token and the polled ticket', async () => {
    const user = await registerUser(app);
    keep('ip user session', user.token);
    const denied = await http(app)
      .post('/v1/auth/login')
      .set('X-Forwarded-For', '203.0.113.77')
      .send({ email: user.email, password: user.password });
    expect(denied.status).toBe(403);
    const ticket = keep('ip ticket', denied.body.ticket);
    expect(lastMail(app, user.email, 'authorize_ip').text).toContain('#token=');
    const token = keep('ip authorization token', mailToken(app, user.email, 'authorize_ip'));

    const pending = await raw('GET', `/v1/auth/ip-authorization/poll?ticket=${ticket}`);
    expect(pending.json).toEqual({ completed: false });
    expect((await requestLine(pending.reqId)).url).toBe(
      '/v1/auth/ip-authorization/poll?ticket=[redacted]',
    );
    expect((await http(app).post('/v1/auth/authorize-ip').send({ token })).status).toBe(204);
    // The ticket on an unknown route and with a mistyped name.
    expect((await raw('GET', `/v1/auth/ip-authorization/pol?ticket=${ticket}`)).status).toBe(404);
    const done = await raw(
      'GET',
      `/v1/auth/ip-authorization/poll?Ticket=${ticket}&ticket=${ticket}`,
    );
    expect(done.json).toEqual({ completed: true, token: expect.any(String), user_id: user.userId });
    keep('ip authorized session', done.json.token);

    expect(await leaks()).toEqual([]);
  });

  it('device handoff: the code in the status path, and the session it hands over', async () => {
    const user = await registerUser(app);
    keep('handoff user session', user.token);
    const init = await http(app).post('/v1/auth/handoff/initiate');
    expect(init.status).toBe(200);
    const code = keep('handoff code', init.body.code);
    keep('handoff code (typed)', code.replace('-', ''));
    const pending = await raw('GET', `/v1/auth/handoff/${code}/status`);
    expect(pending.json).toEqual({ status: 'pending' });
    expect((await requestLine(pending.reqId)).url).toBe('/v1/auth/handoff/[redacted]/status');
    // Lower case and without its dash, on a mistyped route and with the wrong method.
    const typed = code.replace('-', '').toLowerCase();
    expect((await raw('GET', `/v1/auth/handoff/${typed}/statu`)).status).toBe(404);
    expect((await raw('POST', `/v1/auth/handoff/${typed}/status`)).status).toBe(404);
    expect((await raw('GET', `/v1/auth/handoff/${code.toLowerCase()}`)).status).toBe(404);

    const completed = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code, token: user.token, user_id: user.userId });
    expect(completed.status).toBe(204);
    const result = await raw('GET', `/v1/auth/handoff/${typed}/status/`);
    expect(result.json).toMatchObject({ status: 'completed' });
    keep('handed-over session', result.json.token);

    expect(await leaks()).toEqual([]);
  });

  it('MFA: the TOTP secret, backup codes and the login ticket', async () => {
    const user = await registerUser(app);
    keep('mfa user session', user.token);
    const { secret, backupCodes } = await enableTotp(app, user);
    keep('totp secret', secret);
    backupCodes.forEach((c, i) => keep(`backup code ${i}`, c));
    const login = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: user.password });
    expect(login.body.mfa).toBe(true);
    const ticket = keep('mfa ticket', login.body.ticket);
    const done = await http(app)
      .post('/v1/auth/login/mfa/totp')
      .send({ ticket, code: backupCodes[0] });
    expect(done.status).toBe(200);
    keep('mfa session', done.body.token);

    expect(await leaks()).toEqual([]);
  });

  it('OAuth2: client secret, bot token, code and state, tokens, refresh, introspection, revocation', async () => {
    const owner = await registerUser(app);
    const user = await registerUser(app);
    keep('oauth owner session', owner.token);
    keep('oauth user session', user.token);
    const client = await createApplication(app, owner);
    keep('client secret', client.clientSecret);
    keep('bot token', client.botToken);
    const state = keep('state', `state-${randomBytes(12).toString('base64url')}`);
    const consent = await consentCode(app, user, client, { state });
    expect(consent.state).toBe(state);
    const code = keep('authorization code', consent.code);
    // The redirect's query, as a careless client would send it to the API.
    const echoed = await raw('GET', `/v1/users/@me?${new URL(consent.redirectTo).search.slice(1)}`);
    expect(echoed.status).toBe(401);

    const tokens = await exchangeCode(app, client, code);
    expect(tokens.status).toBe(200);
    const access = keep('access token', tokens.body.access_token);
    const refresh = keep('refresh token', tokens.body.refresh_token);
    expect(
      (await http(app).get('/v1/oauth2/@me').set('Authorization', `Bearer ${access}`)).status,
    ).toBe(200);
    expect(
      (await http(app).get('/v1/applications/@me').set('Authorization', `Bot ${client.botToken}`))
        .status,
    ).toBe(200);

    const refreshed = await http(app)
      .post('/v1/oauth2/token')
      .set('Authorization', basicAuth(client.id, client.clientSecret))
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: refresh });
    expect(refreshed.status).toBe(200);
    keep('refreshed access token', refreshed.body.access_token);
    const refresh2 = keep('refreshed refresh token', refreshed.body.refresh_token);

    const introspected = await http(app)
      .post('/v1/oauth2/introspect')
      .type('form')
      .send({ token: refresh2, client_id: client.id, client_secret: client.clientSecret });
    expect(introspected.body.active).toBe(true);
    const revoked = await http(app)
      .post('/v1/oauth2/token/revoke')
      .type('form')
      .send({ token: refresh2, client_id: client.id, client_secret: client.clientSecret });
    expect(revoked.status).toBe(200);
    // Credentials in the query of the token endpoint.
    const inQuery = await raw(
      'POST',
      `/v1/oauth2/token?client_secret=${client.clientSecret}&refresh_token=${refresh2}`,
    );
    expect(inQuery.status).toBeGreaterThanOrEqual(400);

    expect(await leaks()).toEqual([]);
  });

  describe('webhooks', () => {
    let owner: TestUser;
    let hook: TestWebhook;
    const path = (w: TestWebhook, suffix = '') => `/v1/webhooks/${w.id}/${w.token}${suffix}`;

    beforeAll(async () => {
      owner = await registerUser(app);
      keep('webhook owner session', owner.token);
      const guild = await createGuild(app, owner.token);
      hook = await createWebhook(app, owner.token, guild.channelId, 'Log scan');
      keep('webhook token', hook.token);
    });

    it('executes on all four routes and on odd spellings of the path', async () => {
      const push = definitions.find((d) => d.name === 'push')!.examples[0];
      const errortracker = {
        action: 'created',
        data: { issue: { id: '1', title: 'Boom', web_url: 'https://e.example/1' } },
      };
      const executions: Array<{
        url: string;
        headers?: Record<string, string>;
        body: unknown;
        status: number;
        logged: string;
      }> = [
        {
          url: path(hook, '?wait=true'),
          body: { content: 'hi' },
          status: 200,
          logged: '?wait=true',
        },
        {
          url: path(hook, '/repohost'),
          headers: { 'X-GitHub-Event': 'push' },
          body: push,
          status: 204,
          logged: '/repohost',
        },
        {
          url: path(hook, '/errortracker'),
          headers: { 'Sentry-Hook-Resource': 'issue' },
          body: errortracker,
          status: 204,
          logged: '/errortracker',
        },
        {
          url: path(hook, '/chatcompat'),
          body: { text: 'hi' },
          status: 200,
          logged: '/chatcompat',
        },
        // Spellings the router still matches: logged, decoded, as the route they reached.
        {
          url: `/v1/%77ebhooks/${hook.id}/${hook.token}`,
          body: { content: 'a' },
          status: 204,
          logged: '',
        },
        { url: path(hook, '/'), body: { content: 'b' }, status: 204, logged: '' },
        {
          url: `/v1/webhooks/${hook.id}/${hook.token}/chat%63ompat`,
          body: { text: 'c' },
          status: 200,
          logged: '/chatcompat',
        },
        // Not a route (the router keeps the empty segment): logged as sent, token redacted.
        {
          url: `/v1//webhooks/${hook.id}/${hook.token}`,
          body: { content: 'd' },
          status: 404,
          logged: `/v1//webhooks/${hook.id}/[redacted]`,
        },
      ];
      for (const { url, headers, body, status, logged } of executions) {
        const res = await raw('POST', url, { headers, body });
        const line = await requestLine(res.reqId);
        expect({ url, status: res.status, logged: line.url }).toEqual({
          url,
          status,
          logged: logged.startsWith('/v1/')
            ? logged
            : `/v1/webhooks/${hook.id}/[redacted]${logged}`,
        });
      }
      expect(await leaks()).toEqual([]);
    });

    it('refuses wrong tokens and unknown routes without logging what was sent', async () => {
      const wrong = keep('wrong webhook token', randomBytes(48).toString('base64url').slice(0, 64));
      const refused: Array<[string, string, number]> = [
        ['POST', `/v1/webhooks/${hook.id}/${wrong}`, 404],
        ['POST', `/v1/webhooks/${hook.id}/${wrong}/repohost`, 404],
        ['POST', path(hook, '/nope'), 404],
        ['GET', path(hook, '/nope?token=x'), 404],
        ['POST', `/V1/WEBHOOKS/${hook.id}/${hook.token}`, 404],
        ['OPTIONS', path(hook), 404],
        // The token where an id belongs (a client that dropped the id), and across a `%2F`.
        ['GET', `/v1/webhooks/${hook.token}`, 401],
        ['GET', `/v1/webhooks/${hook.id}%2F${hook.token}`, 401],
        ['DELETE', `/v1/webhooks/${hook.token}`, 401],
        ['GET', `/v1/webhooks/${hook.id}?token=${hook.token}`, 401],
      ];
      for (const [method, url, status] of refused) {
        const res = await raw(method, url, {
          body: method === 'POST' ? { content: 'x' } : undefined,
        });
        expect({ method, url, status: res.status }).toEqual({ method, url, status });
      }
      expect(await leaks()).toEqual([]);
    });

    it('GET, HEAD, PATCH and DELETE with the token; the signing secret never logged', async () => {
      expect((await raw('GET', path(hook))).status).toBe(200);
      expect((await raw('HEAD', path(hook))).status).toBe(200);
      const renamed = await raw('PATCH', path(hook), { body: { name: 'Renamed' } });
      expect(renamed.status).toBe(200);
      expect((await requestLine(renamed.reqId)).url).toBe(`/v1/webhooks/${hook.id}/[redacted]`);

      const signed = await createWebhook(app, owner.token, hook.channelId, 'Signed');
      keep('signed webhook token', signed.token);
      const secret = keep('signing secret', `whsec-${randomBytes(24).toString('base64url')}`);
      const set = await http(app)
        .patch(`/v1/webhooks/${signed.id}`)
        .set('Authorization', owner.token)
        .send({ signing_secret: secret });
      expect(set.body.signing_secret_set).toBe(true);
      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
      const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const delivery = (sig: string) =>
        http(app)
          .post(path(signed, '/repohost'))
          .set('Content-Type', 'application/json')
          .set('X-GitHub-Event', 'ping')
          .set('X-Hub-Signature-256', sig)
          .send(body);
      expect((await delivery(signature)).status).toBeLessThan(300);
      expect((await delivery(`sha256=${'0'.repeat(64)}`)).status).toBe(401);
      // A signing secret in the token PATCH is not part of it: the token holder cannot set it.
      const byToken = await raw('PATCH', path(signed), { body: { signing_secret: secret } });
      expect(byToken.status).toBe(200);

      const deleted = await raw('DELETE', path(signed));
      expect(deleted.status).toBe(204);
      expect(await leaks()).toEqual([]);
    });
  });

  it('admin keys, a user archive and its signed download link', async () => {
    const root = await createAdminKey(app, ['*']);
    keep('admin key', root.key);
    keep('admin key owner session', root.owner.token);
    const created = await http(app)
      .post('/v1/admin/api-keys')
      .set('Authorization', root.header)
      .send({ name: unique('scan-'), acls: ['*'] });
    expect(created.status).toBe(200);
    const key = keep('created admin key', created.body.key);
    const header = `Admin ${key}`;
    expect((await http(app).get('/v1/admin/api-keys').set('Authorization', header)).status).toBe(
      200,
    );

    const subject = await registerUser(app);
    keep('archive subject session', subject.token);
    const trigger = await http(app)
      .post('/v1/admin/archives/user')
      .set('Authorization', header)
      .send({ user_id: subject.userId });
    expect(trigger.status).toBe(200);
    const archiveId = trigger.body.archive_id as string;
    const base = `/v1/admin/archives/user/${subject.userId}/${archiveId}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const details = await http(app).get(base).set('Authorization', header);
      if (details.body.status === 'completed') break;
      if (details.body.status === 'failed' || Date.now() > deadline) {
        throw new Error(`archive did not complete: ${JSON.stringify(details.body)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const link = await http(app).get(`${base}/download`).set('Authorization', header);
    expect(link.status).toBe(200);
    const url = new URL(link.body.download_url as string);
    const signature = keep('archive signature', url.searchParams.get('signature'));
    const expires = url.searchParams.get('expires')!;

    const download = await raw('GET', url.pathname + url.search);
    expect(download.status).toBe(200);
    expect((await requestLine(download.reqId)).url).toBe(
      `/v1/archives/${archiveId}/download?expires=${expires}&signature=[redacted]`,
    );
    const mangled = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    keep('mangled archive signature', mangled);
    const variants: Array<[string, number]> = [
      [`${url.pathname}?expires=${expires}&signature=${mangled}`, 403],
      [`${url.pathname}?Signature=${signature}&expires=${expires}`, 403],
      [`${url.pathname}/?expires=${expires}&signature=${signature}`, 200],
      [`/v1/archives/${archiveId}/%64ownload?expires=${expires}&signature=${signature}`, 200],
      [`/v1/archives/${archiveId}/downloads?expires=${expires}&signature=${signature}`, 404],
      [`/v1/archives/${archiveId}?expires=${expires}&signature=${signature}`, 404],
      [`/v1/archives/${signature}/download?expires=${expires}`, 403],
    ];
    for (const [path, status] of variants) {
      const res = await raw('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status });
    }
    expect(await leaks()).toEqual([]);
  });

  it('credential-looking query parameters on ordinary routes', async () => {
    const user = await registerUser(app);
    keep('query user session', user.token);
    const values = Object.fromEntries(
      [
        'token',
        'code',
        'state',
        'signature',
        'secret',
        'password',
        'ticket',
        'access_token',
        'refresh_token',
        'client_secret',
      ].map((name) => [name, keep(`query ${name}`, `${name}-${randomBytes(12).toString('hex')}`)]),
    );
    const query = new URLSearchParams(values).toString();
    const authed = await raw('GET', `/v1/users/@me?${query}`, {
      headers: { Authorization: user.token },
    });
    expect(authed.status).toBe(200);
    expect(await raw('GET', `/v1/users/@me?${query}`)).toMatchObject({ status: 401 });
    expect(await raw('GET', `/v1/nothing-here?${query}`)).toMatchObject({ status: 404 });
    const odd = await raw(
      'GET',
      `/v1/users/@me?TOKEN=${values.token}&t%6Fken=${values.token}&code=${values.code}&code=${values.code}`,
      { headers: { Authorization: user.token } },
    );
    expect(odd.status).toBe(200);
    expect((await requestLine(authed.reqId)).url).toBe(
      `/v1/users/@me?${Object.keys(values)
        .map((k) => `${k}=[redacted]`)
        .join('&')}`,
    );
    expect(await leaks()).toEqual([]);
  });

  it('captured the log it scanned: request lines, mail lines, each flow', async () => {
    // Every request sent over a socket has its line…
    expect(sentIds.length).toBeGreaterThan(50);
    for (const reqId of sentIds) await requestLine(reqId);
    // …and so have the flows driven through supertest.
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const urls = parsed.filter((l) => l.msg === 'request').map((l) => String(l.url));
    expect(urls.length).toBeGreaterThan(100);
    for (const expected of [
      /^\/v1\/auth\/login$/,
      /^\/v1\/auth\/reset$/,
      /^\/v1\/oauth2\/token$/,
      /^\/v1\/oauth2\/token\/revoke$/,
      /^\/v1\/webhooks\/\d+\/\[redacted\]\/repohost$/,
      /^\/v1\/webhooks\/\d+\/\[redacted\]\/errortracker$/,
      /^\/v1\/admin\/api-keys$/,
      /^\/v1\/auth\/handoff\/\[redacted\]\/status$/,
      /^\/v1\/archives\/\d+\/download\?expires=\d+&signature=\[redacted\]$/,
    ]) {
      expect(urls.some((u) => expected.test(u))).toBe(true);
    }
    const mail = parsed.filter((l) => l.context === 'Mail').map((l) => String(l.msg));
    expect(mail.some((m) => m.includes('#token=[REDACTED]'))).toBe(true);
    expect(secrets.size).toBeGreaterThan(40);
  });
});

/** The texts a line is searched in: as written, JSON-unescaped and percent-decoded, lowercased. */
function haystacks(line: string): string[] {
  const out = [line];
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  try {
    walk(JSON.parse(line));
  } catch {
    // Not JSON: searched as written.
  }
  for (const s of strings) {
    out.push(s);
    try {
      out.push(decodeURIComponent(s));
    } catch {
      out.push(
        s.replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
      );
    }
  }
  return out.map((s) => s.toLowerCase());
}
