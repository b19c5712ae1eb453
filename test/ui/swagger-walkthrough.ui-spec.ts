import type { ParleyApp } from '../../src/app.setup';
import type { Browser } from 'playwright-core';
import { serverPort } from '../helpers/ports';
import { createTestApp, unique } from '../helpers/app';
import { jsonOf, launchChromium, SwaggerUi, type ShownResponse } from './swagger-ui';

/**
 * Swagger UI as the console (issue 12): a person opens /docs on the real app and, with nothing
 * but the page, registers, logs in, authorizes, creates a guild, a channel and a webhook from
 * the pre-filled examples, posts a Slack-style message through the webhook, creates an OAuth2
 * application, consents, and exchanges and introspects a token with the client's Basic
 * credentials. Only what a person must type is changed in the editors: a unique e-mail and
 * username, the ids, tokens and code earlier answers showed.
 */
describe('Swagger UI as the console: the examples work end to end (headless Chromium)', () => {
  let app: ParleyApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const port = await serverPort();
    base = `http://127.0.0.1:${port}`;
    // PUBLIC_URL is the document's server, so "Execute" must reach this very process.
    app = await createTestApp({ env: { PUBLIC_URL: base } });
    await app.listen(port, '127.0.0.1');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The status shown, with the body in the failure message (the example that broke). */
  function expectStatus(res: ShownResponse, status: string): void {
    expect({ status: res.status, url: res.url, body: res.body }).toMatchObject({ status });
  }

  it('register → login → Authorize → guild, channel, webhook → chatcompat → OAuth2 app → token → introspect', async () => {
    const ui = await SwaggerUi.open(browser, base);
    const suffix = unique();
    const email = `ui_${suffix}@example.com`;
    const username = `ui_${suffix}`.slice(0, 32);

    // 1. Register from the example, with an e-mail and a username of one's own.
    const register = await ui.tryItOut('Auth', 'register');
    let password = '';
    await register.editBody<Record<string, unknown>>((example) => {
      password = String(example.password);
      return { ...example, email, username };
    });
    const registered = await register.execute();
    expectStatus(registered, '200');
    const { user_id: userId, token: registerToken } = jsonOf<{ user_id: string; token: string }>(
      registered,
    );
    expect(userId).toMatch(/^\d+$/);
    expect(registerToken).toEqual(expect.any(String));

    // 2. Log in with the same credentials.
    const login = await ui.tryItOut('Auth', 'login');
    await login.editBody((example) => ({ ...example, email, password }));
    const loggedIn = await login.execute();
    expectStatus(loggedIn, '200');
    const session = jsonOf<{ user_id: string; token: string }>(loggedIn);
    expect(session.user_id).toBe(userId);

    // 3. Authorize sessionToken with the token the page showed; GET /users/@me.
    await ui.authorizeApiKey('sessionToken', session.token);
    const me = await (await ui.tryItOut('Users', 'get_current_user')).execute();
    expectStatus(me, '200');
    expect(jsonOf(me)).toMatchObject({ id: userId, username, email });

    // 4. A guild, a channel in it, a webhook in that channel — each from its example.
    const guildOp = await ui.tryItOut('Guilds', 'create_guild');
    const guildExample = await guildOp.body<{ name: string }>();
    const guildRes = await guildOp.execute();
    expectStatus(guildRes, '201');
    const guild = jsonOf<{ id: string; name: string; owner_id: string }>(guildRes);
    expect(guild).toMatchObject({ name: guildExample.name, owner_id: userId });

    const channelOp = await ui.tryItOut('Guilds', 'create_guild_channel');
    await channelOp.setParam('guild_id', guild.id, 'path');
    const channelRes = await channelOp.execute();
    expectStatus(channelRes, '201');
    const channel = jsonOf<{ id: string; guild_id: string; name: string }>(channelRes);
    expect(channel.guild_id).toBe(guild.id);

    const webhookOp = await ui.tryItOut('Webhooks', 'create_webhook');
    await webhookOp.setParam('channel_id', channel.id, 'path');
    const webhookExample = await webhookOp.body<{ name: string }>();
    const webhookRes = await webhookOp.execute();
    expectStatus(webhookRes, '201');
    const webhook = jsonOf<{ id: string; token: string; channel_id: string; name: string }>(
      webhookRes,
    );
    expect(webhook).toMatchObject({ channel_id: channel.id, name: webhookExample.name });
    expect(webhook.token).toEqual(expect.any(String));

    // 5. The Slack-style sender posts its example through the webhook URL (no Authorization).
    const chatOp = await ui.tryItOut('Webhooks', 'execute_chatcompat_webhook');
    const chatExample = await chatOp.body<{ text: string }>();
    await chatOp.setParam('webhook_id', webhook.id, 'path');
    await chatOp.setParam('token', webhook.token, 'path');
    const chatRes = await chatOp.execute();
    expectStatus(chatRes, '200');
    expect(chatRes.body.trim()).toBe('ok');

    // …and the message is in the channel, posted by the webhook.
    const listOp = await ui.tryItOut('Channels', 'list_channel_messages');
    await listOp.setParam('channel_id', channel.id, 'path');
    const listRes = await listOp.execute();
    expectStatus(listRes, '200');
    const messages =
      jsonOf<Array<{ channel_id: string; webhook_id?: string; content: string }>>(listRes);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ channel_id: channel.id, webhook_id: webhook.id });
    // Slack mrkdwn is translated, so compare the words only.
    const words = (text: string) => text.match(/[A-Za-z0-9]+/g) ?? [];
    expect(words(chatExample.text).length).toBeGreaterThan(0);
    expect(words(messages[0].content)).toEqual(expect.arrayContaining(words(chatExample.text)));

    // 6. An OAuth2 application from its example: its id, secret and redirect URIs are shown once.
    const appOp = await ui.tryItOut('OAuth2 applications', 'create_oauth2_application');
    const appExample = await appOp.body<{ name: string }>();
    const appRes = await appOp.execute();
    expectStatus(appRes, '200');
    const client = jsonOf<{
      id: string;
      name: string;
      client_secret: string;
      redirect_uris: string[];
      bot: { id: string };
    }>(appRes);
    expect(client).toMatchObject({ name: appExample.name });
    expect(client.client_secret).toEqual(expect.any(String));
    expect(client.redirect_uris.length).toBeGreaterThan(0);

    // 7. The user consents (still as sessionToken): the example asks for a code for identify and
    //    email at the example redirect URI, which the example application registered.
    const consentOp = await ui.tryItOut('OAuth2', 'authorize_consent');
    await consentOp.editBody((example) => ({ ...example, client_id: client.id }));
    const consented = await consentOp.execute();
    expectStatus(consented, '200');
    const redirect = new URL(jsonOf<{ redirect_to: string }>(consented).redirect_to);
    expect(client.redirect_uris).toContain(`${redirect.origin}${redirect.pathname}`);
    const code = redirect.searchParams.get('code');
    expect(code).toEqual(expect.any(String));

    // 8. Authorize clientBasic with the application id and secret; exchange the code (the token
    //    example carries no client credentials, as clientBasic's description asks).
    await ui.authorizeBasic('clientBasic', client.id, client.client_secret);
    const tokenOp = await ui.tryItOut('OAuth2', 'exchange_oauth2_token');
    await tokenOp.editBody((example) => ({ ...example, code }));
    const tokenRes = await tokenOp.execute();
    expectStatus(tokenRes, '200');
    const tokens = jsonOf<{ access_token: string; token_type: string; scope: string }>(tokenRes);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'identify email' });

    // 9. Introspect the access token with the same Basic credentials.
    const introspectOp = await ui.tryItOut('OAuth2', 'introspect_oauth2_token');
    await introspectOp.editBody((example) => ({ ...example, token: tokens.access_token }));
    const introspected = await introspectOp.execute();
    expectStatus(introspected, '200');
    expect(jsonOf(introspected)).toMatchObject({
      active: true,
      client_id: client.id,
      sub: userId,
      scope: 'identify email',
      username,
    });
    await ui.close();
  }, 300_000);

  it('shows the 401 invalid_client of a client endpoint executed without client credentials', async () => {
    // The endpoint leaves out its Basic challenge for a script's request without Authorization:
    // with it, the browser would answer with its own login prompt and the page would wait.
    const ui = await SwaggerUi.open(browser, base);
    const introspect = await ui.tryItOut('OAuth2', 'introspect_oauth2_token');
    await introspect.editBody((example) => ({ ...example, token: 'not-a-token' }));
    const refused = await introspect.execute();
    expectStatus(refused, '401');
    expect(jsonOf(refused)).toMatchObject({ error: 'invalid_client' });
    await ui.close();
  }, 120_000);
});
