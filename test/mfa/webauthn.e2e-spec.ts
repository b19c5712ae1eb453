import type { ParleyApp } from '../../src/app.setup';
import type WebAuthnEmulator from 'nid-webauthn-emulator';
import { DataSource } from 'typeorm';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import {
  mfaTicketOf,
  registerCredential,
  softwareAuthenticator,
  WEBAUTHN_ORIGIN,
} from '../helpers/mfa';
import { findSecretsAtRest, secretNeedles } from '../helpers/secret-scan';

/**
 * WebAuthn with a software authenticator (nid-webauthn-emulator) playing the browser and the
 * key: registration, the MFA login step, passwordless passkeys, re-authentication, and the
 * refusals — foreign challenges, replays, other users' credentials, missing user verification,
 * counters going backwards.
 */
describe('WebAuthn', () => {
  let app: ParleyApp;
  let db: DataSource;
  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  const ticketOf = async (user: TestUser): Promise<string> => (await mfaTicketOf(app, user)).ticket;
  const mfaOptions = async (ticket: string) => {
    const res = await http(app)
      .post('/v1/auth/login/mfa/webauthn/authentication-options')
      .send({ ticket });
    expect(res.status).toBe(200);
    return res.body;
  };
  const mfaLogin = (ticket: string, challenge: string, response: unknown) =>
    http(app).post('/v1/auth/login/mfa/webauthn').send({ ticket, challenge, response });
  const passwordlessOptions = async () => {
    const res = await http(app).post('/v1/auth/webauthn/authentication-options').send();
    expect(res.status).toBe(200);
    return res.body;
  };
  const passwordless = (challenge: string, response: unknown) =>
    http(app).post('/v1/auth/webauthn/authenticate').send({ challenge, response });
  const enrolled = async (): Promise<{ user: TestUser; key: WebAuthnEmulator; id: string }> => {
    const user = await registerUser(app);
    const key = softwareAuthenticator();
    const { id } = await registerCredential(app, user, key);
    return { user, key, id };
  };

  it('registers a credential: listed, and the account has WebAuthn MFA', async () => {
    const user = await registerUser(app);
    const options = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials/registration-options')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      rp: { id: 'app.parley.test', name: 'Parley' },
      user: { id: Buffer.from(user.userId).toString('base64url'), name: user.email },
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    const key = softwareAuthenticator();
    const response = key.createJSON(WEBAUTHN_ORIGIN, options.body);
    const registered = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials')
      .set('Authorization', user.token)
      .send({ name: 'YubiKey 5', challenge: options.body.challenge, response });
    expect(registered.status).toBe(200);
    expect(registered.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'YubiKey 5',
      created_at: expect.any(String),
      last_used_at: null,
    });
    // The challenge was spent by the registration.
    const again = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials')
      .set('Authorization', user.token)
      .send({ name: 'Again', challenge: options.body.challenge, response });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_WEBAUTHN_RESPONSE');

    const list = await http(app)
      .get('/v1/users/@me/mfa/webauthn/credentials')
      .set('Authorization', user.token);
    expect(list.body).toEqual([registered.body]);
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body).toMatchObject({ mfa_enabled: true, authenticator_types: [2] });
  });

  it('refuses a registration response over another challenge or from another origin', async () => {
    const user = await registerUser(app);
    const key = softwareAuthenticator();
    const first = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials/registration-options')
      .set('Authorization', user.token)
      .send({ password: user.password });
    const second = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials/registration-options')
      .set('Authorization', user.token)
      .send({});
    // Signed over the first challenge, presented with the second one.
    const swapped = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials')
      .set('Authorization', user.token)
      .send({
        name: 'x',
        challenge: second.body.challenge,
        response: key.createJSON(WEBAUTHN_ORIGIN, first.body),
      });
    expect(swapped.status).toBe(400);
    expect(swapped.body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
    const third = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials/registration-options')
      .set('Authorization', user.token)
      .send({});
    const elsewhere = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials')
      .set('Authorization', user.token)
      .send({
        name: 'x',
        challenge: third.body.challenge,
        response: softwareAuthenticator().createJSON('https://evil.example', {
          ...third.body,
          rp: { id: 'evil.example', name: 'Evil' },
        }),
      });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
  });

  it('finishes an MFA login with the credential; the counter and last use are kept', async () => {
    const { user, key } = await enrolled();
    const login = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: user.password });
    expect(login.body).toMatchObject({
      mfa: true,
      totp: false,
      sms: false,
      webauthn: true,
      allowed_methods: ['webauthn'],
    });
    const options = await mfaOptions(login.body.ticket as string);
    expect(options.allowCredentials).toHaveLength(1);
    const response = key.getJSON(WEBAUTHN_ORIGIN, options);
    const done = await mfaLogin(login.body.ticket as string, options.challenge as string, response);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String), user_id: user.userId });
    const me = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', done.body.token as string);
    expect(me.body.id).toBe(user.userId);
    const [row] = await db.query<Array<{ counter: string; last_used_at: Date | null }>>(
      'SELECT counter, last_used_at FROM webauthn_credentials WHERE user_id = $1',
      [user.userId],
    );
    expect(Number(row.counter)).toBeGreaterThan(0);
    expect(row.last_used_at).not.toBeNull();
  });

  it('refuses a challenge issued for another ticket, and a replayed assertion', async () => {
    const { user, key } = await enrolled();
    const ticketA = await ticketOf(user);
    const ticketB = await ticketOf(user);
    const optionsA = await mfaOptions(ticketA);
    const response = key.getJSON(WEBAUTHN_ORIGIN, optionsA);
    const crossed = await mfaLogin(ticketB, optionsA.challenge as string, response);
    expect(crossed.status).toBe(400);
    expect(crossed.body.code).toBe('INVALID_MFA_CODE');
    // The challenge is bound to ticket A and was not spent by B's attempt.
    const ok = await mfaLogin(ticketA, optionsA.challenge as string, response);
    expect(ok.status).toBe(200);
    // The same assertion again, with a fresh ticket: its challenge is spent.
    const ticketC = await ticketOf(user);
    await mfaOptions(ticketC);
    const replay = await mfaLogin(ticketC, optionsA.challenge as string, response);
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('INVALID_MFA_CODE');
  });

  it("refuses another user's credential for this user's ticket", async () => {
    const alice = await enrolled();
    const bob = await enrolled();
    const ticket = await ticketOf(bob.user);
    const options = await mfaOptions(ticket);
    // Alice's key signs Bob's challenge with Alice's credential.
    const aliceCredential = await db.query<Array<{ credential_id: string }>>(
      'SELECT credential_id FROM webauthn_credentials WHERE user_id = $1',
      [alice.user.userId],
    );
    const response = alice.key.getJSON(WEBAUTHN_ORIGIN, {
      ...options,
      allowCredentials: [{ id: aliceCredential[0].credential_id, type: 'public-key' }],
    });
    const res = await mfaLogin(ticket, options.challenge as string, response);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_MFA_CODE');
  });

  it('refuses an assertion whose signature counter went backwards', async () => {
    const { user, key } = await enrolled();
    await db.query('UPDATE webauthn_credentials SET counter = 1000 WHERE user_id = $1', [
      user.userId,
    ]);
    const ticket = await ticketOf(user);
    const options = await mfaOptions(ticket);
    const res = await mfaLogin(
      ticket,
      options.challenge as string,
      key.getJSON(WEBAUTHN_ORIGIN, options),
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_MFA_CODE');
  });

  it('logs in without a password with a discoverable credential', async () => {
    const { user, key } = await enrolled();
    const options = await passwordlessOptions();
    expect(options).toMatchObject({ userVerification: 'required', rpId: 'app.parley.test' });
    expect(options.allowCredentials ?? []).toEqual([]);
    const response = key.getJSON(WEBAUTHN_ORIGIN, options);
    const res = await passwordless(options.challenge as string, response);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: expect.any(String), user_id: user.userId });
    const me = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', res.body.token as string);
    expect(me.body.id).toBe(user.userId);
    const replay = await passwordless(options.challenge as string, response);
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
    // An MFA challenge is not a passwordless one.
    const ticket = await ticketOf(user);
    const mfa = await mfaOptions(ticket);
    const crossed = await passwordless(mfa.challenge as string, key.getJSON(WEBAUTHN_ORIGIN, mfa));
    expect(crossed.status).toBe(400);
    expect(crossed.body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
  });

  it('passwordless login requires user verification; the MFA step does not', async () => {
    const user = await registerUser(app);
    const key = softwareAuthenticator({ userVerification: false });
    await registerCredential(app, user, key);
    const options = await passwordlessOptions();
    const res = await passwordless(
      options.challenge as string,
      key.getJSON(WEBAUTHN_ORIGIN, options),
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
    const ticket = await ticketOf(user);
    const mfa = await mfaOptions(ticket);
    const step = await mfaLogin(ticket, mfa.challenge as string, key.getJSON(WEBAUTHN_ORIGIN, mfa));
    expect(step.status).toBe(200);
  });

  it('re-authenticates a sensitive route with an assertion', async () => {
    const { user, key } = await enrolled();
    const options = await http(app)
      .post('/v1/users/@me/mfa/webauthn/reauth-options')
      .set('Authorization', user.token);
    expect(options.status).toBe(200);
    const proof = JSON.stringify({
      challenge: options.body.challenge,
      response: key.getJSON(WEBAUTHN_ORIGIN, options.body),
    });
    const changed = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ new_password: 'passkey-Proven-1', mfa_method: 'webauthn', mfa_code: proof });
    expect(changed.status).toBe(200);
    const replay = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ new_password: 'passkey-Proven-2', mfa_method: 'webauthn', mfa_code: proof });
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('INVALID_MFA_CODE');
    const garbage = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ new_password: 'passkey-Proven-3', mfa_method: 'webauthn', mfa_code: 'not json' });
    expect(garbage.status).toBe(400);
    expect(garbage.body.code).toBe('INVALID_MFA_CODE');
  });

  it('renames and deletes credentials; the last one takes WebAuthn off the account', async () => {
    const { user, id } = await enrolled();
    const other = await enrolled();
    const renamed = await http(app)
      .patch(`/v1/users/@me/mfa/webauthn/credentials/${id}`)
      .set('Authorization', user.token)
      .send({ name: 'Laptop' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Laptop' });
    for (const bad of [other.id, 'abc', '99999999999999999999999', '0']) {
      const res = await http(app)
        .patch(`/v1/users/@me/mfa/webauthn/credentials/${bad}`)
        .set('Authorization', user.token)
        .send({ name: 'Mine now' });
      expect({ bad, status: res.status, code: res.body.code }).toEqual({
        bad,
        status: 404,
        code: 'UNKNOWN_WEBAUTHN_CREDENTIAL',
      });
    }
    const foreign = await http(app)
      .delete(`/v1/users/@me/mfa/webauthn/credentials/${other.id}`)
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(foreign.status).toBe(404);
    const deleted = await http(app)
      .delete(`/v1/users/@me/mfa/webauthn/credentials/${id}`)
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(deleted.status).toBe(204);
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.body).toMatchObject({ mfa_enabled: false, authenticator_types: [] });
    const list = await http(app)
      .get('/v1/users/@me/mfa/webauthn/credentials')
      .set('Authorization', user.token);
    expect(list.body).toEqual([]);
  });

  it('allows at most 10 credentials', async () => {
    const user = await registerUser(app);
    for (let i = 0; i < 10; i++) {
      await registerCredential(app, user, softwareAuthenticator(), `Key ${i}`);
    }
    const options = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials/registration-options')
      .set('Authorization', user.token)
      .send({ password: user.password });
    expect(options.status).toBe(400);
    expect(options.body.code).toBe('MAX_WEBAUTHN_CREDENTIALS');
  });

  it('keeps no challenge in plaintext', async () => {
    const { user, key } = await enrolled();
    const ticket = await ticketOf(user);
    const mfa = await mfaOptions(ticket);
    await mfaLogin(ticket, mfa.challenge as string, key.getJSON(WEBAUTHN_ORIGIN, mfa));
    const loose = await passwordlessOptions();
    const needles = secretNeedles([], [mfa.challenge as string, loose.challenge as string, ticket]);
    expect(await findSecretsAtRest(db, needles)).toEqual([]);
  });

  it.each([
    ['post', '/v1/users/@me/mfa/webauthn/credentials/registration-options'],
    ['post', '/v1/users/@me/mfa/webauthn/credentials'],
    ['get', '/v1/users/@me/mfa/webauthn/credentials'],
    ['patch', '/v1/users/@me/mfa/webauthn/credentials/1'],
    ['delete', '/v1/users/@me/mfa/webauthn/credentials/1'],
    ['post', '/v1/users/@me/mfa/webauthn/reauth-options'],
  ] as const)('%s %s without credentials → 401', async (method, path) => {
    const res = await http(app)[method](path).send({ name: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['a string response', 'x'],
    ['an array response', [1, 2]],
    ['an empty response', {}],
    ['a response with garbage fields', { id: 'AAAA', response: { clientDataJSON: 5 }, type: 7 }],
    ['a huge id', { id: 'A'.repeat(5000), response: {} }],
  ])('answers %s with a 4xx envelope, never 500', async (_label, response) => {
    const { user } = await enrolled();
    const ticket = await ticketOf(user);
    const mfa = await mfaOptions(ticket);
    const step = await mfaLogin(ticket, mfa.challenge as string, response);
    expect(step.status).toBe(400);
    expect(['INVALID_FORM_BODY', 'INVALID_MFA_CODE']).toContain(step.body.code);
    const options = await passwordlessOptions();
    const loose = await passwordless(options.challenge as string, response);
    expect(loose.status).toBe(400);
    expect(['INVALID_FORM_BODY', 'INVALID_WEBAUTHN_RESPONSE']).toContain(loose.body.code);
    const reg = await http(app)
      .post('/v1/users/@me/mfa/webauthn/credentials')
      .set('Authorization', user.token)
      .send({ name: 'x', challenge: 'abc', response });
    expect(reg.status).toBe(400);
    expect(['INVALID_FORM_BODY', 'INVALID_WEBAUTHN_RESPONSE']).toContain(reg.body.code);
  });

  it('refuses passwordless login while SSO is enforced', async () => {
    const sso = await createTestApp({
      env: {
        SSO_ENABLED: 'on',
        SSO_ENFORCED: 'on',
        SSO_ISSUER: 'http://127.0.0.1:9/issuer',
        SSO_CLIENT_ID: 'parley',
      },
    });
    try {
      const res = await http(sso).post('/v1/auth/webauthn/authentication-options').send();
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('SSO_REQUIRED');
      const auth = await http(sso)
        .post('/v1/auth/webauthn/authenticate')
        .send({ challenge: 'abc', response: { id: 'abc' } });
      expect(auth.status).toBe(403);
      expect(auth.body.code).toBe('SSO_REQUIRED');
    } finally {
      await sso.close();
    }
  });
});
