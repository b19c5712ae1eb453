import type { ParleyApp } from '../../src/app.setup';
import * as OTPAuth from 'otpauth';
import { DataSource } from 'typeorm';
import { createTestApp, http, unique } from '../helpers/app';
import { lastMail, mailToken, tokenOf } from '../helpers/auth-helpers';
import { registerUser } from '../helpers/factories';
import { ageProofs, enableTotp, totpCode } from '../helpers/mfa';
import { findSecretsAtRest, secretNeedles } from '../helpers/secret-scan';

/**
 * MFA across the account flows that are not a factor's own: password reset and e-mail revert end
 * in the MFA step, the re-authentication of sensitive routes accepts a second factor, and no MFA
 * secret is stored in plaintext.
 */
describe('MFA in the account flows', () => {
  let app: ParleyApp;
  let db: DataSource;
  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  it('password reset answers the MFA-required shape, and the TOTP step logs in', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    await http(app).post('/v1/auth/forgot').send({ email: user.email });
    const reset = await http(app)
      .post('/v1/auth/reset')
      .send({ token: mailToken(app, user.email, 'reset'), password: 'reset-Passw0rd-x' });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ mfa: true, totp: true, allowed_methods: ['totp'] });
    expect(reset.body.token).toBeUndefined();
    // Every older session ended with the reset.
    expect((await http(app).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(
      401,
    );
    const done = await http(app)
      .post('/v1/auth/login/mfa/totp')
      .send({ ticket: reset.body.ticket, code: totpCode(secret) });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String), user_id: user.userId });
    const me = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', done.body.token as string);
    expect(me.body).toMatchObject({ id: user.userId, mfa_enabled: true, authenticator_types: [0] });
  });

  it('e-mail revert answers the MFA-required shape for an account with a factor', async () => {
    const user = await registerUser(app);
    await enableTotp(app, user);
    const moved = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ email: `${unique('moved')}@example.com`, password: user.password });
    expect(moved.status).toBe(200);
    const token = tokenOf(lastMail(app, user.email, 'email_revert').text);
    const res = await http(app)
      .post('/v1/auth/email-revert')
      .send({ token, password: 'reverted-Passw0rd' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({ mfa: true, ticket: expect.any(String), totp: true }),
    );
  });

  it('re-authenticates with a TOTP code instead of the password once MFA is on', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    // Changing the password always asks; a current TOTP code is accepted as the proof.
    const changed = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ new_password: 'changed-Passw0rd-1', mfa_method: 'totp', mfa_code: totpCode(secret) });
    expect(changed.status).toBe(200);
    // The same code again is a replay.
    const replay = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ new_password: 'changed-Passw0rd-2', mfa_method: 'totp', mfa_code: totpCode(secret) });
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('INVALID_MFA_CODE');
    // A method the account does not have.
    const webauthn = await http(app)
      .patch('/v1/users/@me')
      .set('Authorization', user.token)
      .send({ new_password: 'changed-Passw0rd-3', mfa_method: 'webauthn', mfa_code: '{}' });
    expect(webauthn.status).toBe(400);
    expect(webauthn.body.code).toBe('MFA_METHOD_UNAVAILABLE');
  });

  it('a TOTP proof re-opens the 5-minute grace of the session', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    const other = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: user.password });
    expect(other.body.mfa).toBe(true);
    await ageProofs(app, user.userId);
    const stale = await http(app)
      .post('/v1/auth/sessions/logout')
      .set('Authorization', user.token)
      .send({ session_id_hashes: [] });
    expect(stale.status).toBe(400);
    expect(stale.body.errors[0]).toMatchObject({ path: 'password', code: 'PASSWORD_REQUIRED' });
    const proven = await http(app)
      .post('/v1/auth/sessions/logout')
      .set('Authorization', user.token)
      .send({ session_id_hashes: [], mfa_method: 'totp', mfa_code: totpCode(secret) });
    expect(proven.status).toBe(204);
    // Within the grace, no proof is needed.
    const graced = await http(app)
      .post('/v1/auth/sessions/logout')
      .set('Authorization', user.token)
      .send({ session_id_hashes: [] });
    expect(graced.status).toBe(204);
  });

  it('MFA login sessions get the re-authentication grace; a handed-off session does not', async () => {
    const user = await registerUser(app);
    const { secret } = await enableTotp(app, user);
    const first = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: user.password });
    const session = await http(app)
      .post('/v1/auth/login/mfa/totp')
      .send({ ticket: first.body.ticket, code: totpCode(secret) });
    expect(session.status).toBe(200);
    const token = session.body.token as string;
    const graced = await http(app)
      .post('/v1/auth/sessions/logout')
      .set('Authorization', token)
      .send({ session_id_hashes: [] });
    expect(graced.status).toBe(204);

    const handoff = await http(app).post('/v1/auth/handoff/initiate').send({});
    const completed = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', token)
      .send({ code: handoff.body.code, token, user_id: user.userId });
    expect(completed.status).toBe(204);
    const status = await http(app).get(`/v1/auth/handoff/${handoff.body.code as string}/status`);
    const handed = status.body.token as string;
    const refused = await http(app)
      .post('/v1/auth/sessions/logout')
      .set('Authorization', handed)
      .send({ session_id_hashes: [] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].code).toBe('PASSWORD_REQUIRED');
  });

  it('stores no TOTP seed, backup code or MFA ticket in plaintext', async () => {
    const user = await registerUser(app);
    const { secret, backupCodes } = await enableTotp(app, user);
    const login = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: user.password });
    const ticket = login.body.ticket as string;
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const used = await http(app)
      .post('/v1/auth/login/mfa/totp')
      .send({ ticket, code: backupCodes[0] });
    expect(used.status).toBe(200);
    const seedBytes = Buffer.from(OTPAuth.Secret.fromBase32(secret).bytes).toString('hex');
    const needles = secretNeedles(
      [secret, seedBytes, ...backupCodes, ...backupCodes.map((c) => c.replace('-', ''))],
      [ticket],
    );
    expect(await findSecretsAtRest(db, needles)).toEqual([]);
  });
});
