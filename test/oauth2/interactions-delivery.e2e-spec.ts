import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { decryptSecret } from '../../src/common/crypto/tokens';
import { ApplicationsService } from '../../src/modules/oauth2/applications.service';
import { InteractionEndpointClient } from '../../src/modules/oauth2/interactions-endpoint/interaction-endpoint.client';
import { createTestApp, http, TEST_SECRET_KEY } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import {
  startEndpoint,
  verifySignature,
  verifyingMiddleware,
  type TestEndpoint,
} from '../helpers/interactions-endpoint';
import { createApplication, type TestApplication } from '../helpers/oauth2-factories';
import { secretNeedles } from '../helpers/secret-scan';

/**
 * The delivery the interaction lifecycle uses: one signed POST to the application's endpoint,
 * whose 200 body is the callback, 202 a promise to answer through the callback route, anything
 * else a failure. And the application's private key, which signs it, appears in no response,
 * no log line (at trace level) and nothing the endpoint receives.
 */
describe('interaction delivery to an HTTP endpoint', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let client: TestApplication;
  let verifyKey: string;
  let bot: TestEndpoint;
  const lines: string[] = [];
  /** Every response body and header block the tests saw. */
  const responses: string[] = [];
  const keep = <T extends { text: string; headers: unknown }>(res: T): T => {
    responses.push(res.text, JSON.stringify(res.headers));
    return res;
  };

  const command = (name: string) => ({
    id: '1234567890123456789',
    application_id: client.id,
    type: 2,
    token: `interaction-token-${name}`,
    version: 1,
    data: { id: '1', name, type: 1 },
  });
  const target = async () => (await app.get(ApplicationsService).find(client.id))!;

  beforeAll(async () => {
    app = await createTestApp({
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'trace' },
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    owner = await registerUser(app);
    client = await createApplication(app, owner);
    responses.push(JSON.stringify(client.body));
    const me = keep(
      await http(app)
        .get('/api/v10/oauth2/applications/@me')
        .set('Authorization', `Bot ${client.botToken}`),
    );
    verifyKey = me.body.verify_key as string;
    bot = await startEndpoint((e) => {
      e.post('/interactions', verifyingMiddleware(verifyKey), (req, res) => {
        const { data } = req.body as { data: { name: string } };
        if (data.name === 'inline') res.json({ type: 4, data: { content: 'Hello!' } });
        else if (data.name === 'later') res.status(202).end();
        else if (data.name === 'broken') res.status(500).json({ message: 'oops' });
        else if (data.name === 'huge') res.json({ type: 4, data: { content: 'x'.repeat(70_000) } });
        else if (data.name === 'text') res.type('text/plain').send('fine');
        else res.status(204).end();
      });
    });
    const set = keep(
      await http(app)
        .patch(`/v1/oauth2/applications/${client.id}`)
        .set('Authorization', owner.token)
        .send({ interactions_endpoint_url: bot.url }),
    );
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await bot?.close();
    await app?.close();
  });

  it('answered inline (200): the body is the callback; signed once, as sent', async () => {
    const client_ = app.get(InteractionEndpointClient);
    const before = bot.received.length;
    const payload = command('inline');
    const result = await client_.deliver(await target(), payload);
    expect(result).toEqual({ kind: 'answered', body: { type: 4, data: { content: 'Hello!' } } });
    expect(bot.received).toHaveLength(before + 1);
    const got = bot.received[before];
    expect(got.body).toBe(JSON.stringify(payload));
    expect(verifySignature(verifyKey, got.headers, got.body)).toBe(true);
    expect(got.headers['content-type']).toBe('application/json');
  });

  it('deferred (202), and failures: 500, 204, an answer too large or not JSON, no endpoint', async () => {
    const deliver = async (name: string) =>
      app.get(InteractionEndpointClient).deliver(await target(), command(name));
    expect(await deliver('later')).toEqual({ kind: 'deferred' });
    expect(await deliver('broken')).toEqual({
      kind: 'failed',
      reason: 'the endpoint answered 500',
    });
    expect(await deliver('nothing')).toEqual({
      kind: 'failed',
      reason: 'the endpoint answered 204',
    });
    expect(await deliver('huge')).toEqual({ kind: 'failed', reason: 'answer over 65536 bytes' });
    expect(await deliver('text')).toEqual({
      kind: 'failed',
      reason: 'the endpoint’s answer is not a JSON object',
    });
    const withoutEndpoint = { ...(await target()), interactionsEndpointUrl: null };
    expect(await app.get(InteractionEndpointClient).deliver(withoutEndpoint, {})).toEqual({
      kind: 'failed',
      reason: 'no interactions endpoint',
    });
  });

  it('the private key is in no response, log line or request the endpoint received', async () => {
    // More of what an owner and a bot see: every read and write of the application.
    keep(
      await http(app).get(`/v1/oauth2/applications/${client.id}`).set('Authorization', owner.token),
    );
    keep(await http(app).get('/v1/oauth2/applications/@me').set('Authorization', owner.token));
    keep(
      await http(app).get('/v1/applications/@me').set('Authorization', `Bot ${client.botToken}`),
    );
    keep(
      await http(app)
        .patch('/api/v10/applications/@me')
        .set('Authorization', `Bot ${client.botToken}`)
        .send({ interactions_endpoint_url: bot.url }),
    );
    const trusting = await startEndpoint((e) =>
      e.post('/interactions', (_q, r) => void r.json({ type: 1 })),
    );
    const refused = keep(
      await http(app)
        .patch(`/v1/oauth2/applications/${client.id}`)
        .set('Authorization', owner.token)
        .send({ interactions_endpoint_url: trusting.url }),
    );
    await trusting.close();
    expect(refused.status).toBe(400);
    expect(responses.length).toBeGreaterThan(10);
    expect(lines.length).toBeGreaterThan(5);

    const [row] = await app
      .get(DataSource)
      .query<Array<{ sealed: string }>>(
        'SELECT signing_key_encrypted AS sealed FROM oauth2_applications WHERE id = $1',
        [client.id],
      );
    const pkcs8 = decryptSecret(Buffer.from(TEST_SECRET_KEY, 'hex'), row.sealed);
    const seed = Buffer.from(pkcs8, 'base64').subarray(-32);
    const needles = secretNeedles(
      [pkcs8, seed.toString('hex'), seed.toString('base64')],
      [seed.toString('base64url')],
    );
    const places = [
      ...responses.map((text) => ['response', text]),
      ...lines.map((text) => ['log', text]),
      ...bot.received.map((r) => ['endpoint', JSON.stringify(r)]),
    ];
    const leaks = places.filter(([, text]) =>
      [...needles].some((n) => text.toLowerCase().includes(n)),
    );
    expect(leaks).toEqual([]);
  });
});
