import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { createTestApp, http, unique } from './helpers/app';
import { expireEmailTokens, lastMail, mailbox, mailToken, tokenOf } from './helpers/auth-helpers';
import { registerUser } from './helpers/factories';
import { findSecretsAtRest, secretNeedles } from './helpers/secret-scan';
import { mimeParts, SmtpSink } from './helpers/smtp-sink';

describe('e-mail flows: verify, forgot/reset, e-mail revert', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const me = (token: string) => http(app).get('/v1/users/@me').set('Authorization', token);
  const login = (email: string, password: string) =>
    http(app).post('/v1/auth/login').send({ email, password });

  describe('POST /auth/verify', () => {
    it('registration mails a link; the token verifies once', async () => {
      const user = await registerUser(app);
      const mail = lastMail(app, user.email, 'verify');
      expect(mail.subject).toBe('Verify your e-mail address');
      expect(mail.text).toContain('http://app.parley.test/verify#token=');
      expect(mail.html).toContain('href="http://app.parley.test/verify#token=');
      const token = tokenOf(mail.text);
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(32);
      expect((await me(user.token)).body.verified).toBe(false);
      const ok = await http(app).post('/v1/auth/verify').send({ token });
      expect(ok.status).toBe(204);
      expect((await me(user.token)).body.verified).toBe(true);
      const again = await http(app).post('/v1/auth/verify').send({ token });
      expect(again.status).toBe(400);
      expect(again.body).toEqual({ code: 'INVALID_EMAIL_TOKEN', message: expect.any(String) });
    });

    it('refuses expired, unknown and malformed tokens', async () => {
      const user = await registerUser(app);
      const token = mailToken(app, user.email, 'verify');
      await expireEmailTokens(app, user.userId, 'verify');
      const expired = await http(app).post('/v1/auth/verify').send({ token });
      expect(expired.status).toBe(400);
      expect(expired.body.code).toBe('INVALID_EMAIL_TOKEN');
      const unknown = await http(app)
        .post('/v1/auth/verify')
        .send({ token: 'A'.repeat(43) });
      expect(unknown.body.code).toBe('INVALID_EMAIL_TOKEN');
      const odd = await http(app).post('/v1/auth/verify').send({ token: "x' OR 1=1" });
      expect(odd.body.code).toBe('INVALID_EMAIL_TOKEN');
      const missing = await http(app).post('/v1/auth/verify').send({});
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('INVALID_FORM_BODY');
      expect(missing.body.errors[0].path).toBe('token');
      expect((await me(user.token)).body.verified).toBe(false);
    });

    it('a reset token is not a verify token', async () => {
      const user = await registerUser(app);
      await http(app).post('/v1/auth/forgot').send({ email: user.email });
      const res = await http(app)
        .post('/v1/auth/verify')
        .send({ token: mailToken(app, user.email, 'reset') });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_EMAIL_TOKEN');
    });
  });

  describe('POST /auth/verify/resend', () => {
    it('sends a fresh verification mail', async () => {
      const user = await registerUser(app);
      const first = mailToken(app, user.email, 'verify');
      const res = await http(app).post('/v1/auth/verify/resend').set('Authorization', user.token);
      expect(res.status).toBe(204);
      const second = mailToken(app, user.email, 'verify');
      expect(second).not.toBe(first);
      expect((await http(app).post('/v1/auth/verify').send({ token: second })).status).toBe(204);
    });

    it('needs a session (401)', async () => {
      const res = await http(app).post('/v1/auth/verify/resend');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });
  });

  describe('POST /auth/forgot and /auth/reset', () => {
    it('answers 204 for unknown addresses without sending anything', async () => {
      const email = `${unique('ghost')}@example.com`;
      const res = await http(app).post('/v1/auth/forgot').send({ email });
      expect(res.status).toBe(204);
      expect(mailbox(app).last(email)).toBeUndefined();
      const bad = await http(app).post('/v1/auth/forgot').send({ email: 'nope' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatchObject({ path: 'email', code: 'INVALID_EMAIL' });
    });

    it('resets the password once, ends every session and logs in', async () => {
      const user = await registerUser(app);
      const other = (await login(user.email, user.password)).body.token as string;
      const forgot = await http(app)
        .post('/v1/auth/forgot')
        .send({ email: user.email.toUpperCase() });
      expect(forgot.status).toBe(204);
      const mail = lastMail(app, user.email, 'reset');
      expect(mail.text).toContain('http://app.parley.test/reset#token=');
      const token = tokenOf(mail.text);
      const short = await http(app).post('/v1/auth/reset').send({ token, password: 'short' });
      expect(short.status).toBe(400);
      expect(short.body.errors[0]).toMatchObject({ path: 'password', code: 'PASSWORD_LENGTH' });
      const res = await http(app)
        .post('/v1/auth/reset')
        .send({ token, password: 'a-brand-new-password' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ token: expect.any(String), user_id: user.userId });
      expect((await me(user.token)).status).toBe(401);
      expect((await me(other)).status).toBe(401);
      expect((await me(res.body.token as string)).status).toBe(200);
      expect((await login(user.email, user.password)).status).toBe(400);
      expect((await login(user.email, 'a-brand-new-password')).status).toBe(200);
      const again = await http(app)
        .post('/v1/auth/reset')
        .send({ token, password: 'yet-another-password' });
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('INVALID_EMAIL_TOKEN');
    });

    it('refuses an expired reset token', async () => {
      const user = await registerUser(app);
      await http(app).post('/v1/auth/forgot').send({ email: user.email });
      const token = mailToken(app, user.email, 'reset');
      await expireEmailTokens(app, user.userId, 'reset');
      const res = await http(app)
        .post('/v1/auth/reset')
        .send({ token, password: 'a-brand-new-password' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_EMAIL_TOKEN');
      expect((await me(user.token)).status).toBe(200);
    });
  });

  describe('POST /auth/email-revert', () => {
    async function changeEmail() {
      const user = await registerUser(app);
      const newEmail = `${unique('moved')}@example.com`;
      const res = await http(app)
        .patch('/v1/users/@me')
        .set('Authorization', user.token)
        .send({ email: newEmail, password: user.password });
      expect(res.status).toBe(200);
      const mail = lastMail(app, user.email, 'email_revert');
      expect(mail.text).toContain('http://app.parley.test/email-revert#token=');
      return { user, newEmail, token: tokenOf(mail.text) };
    }

    it('restores the old address, sets the password, ends every session, logs in', async () => {
      const { user, token } = await changeEmail();
      const res = await http(app)
        .post('/v1/auth/email-revert')
        .send({ token, password: 'reverted-password' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ token: expect.any(String), user_id: user.userId });
      expect((await me(user.token)).status).toBe(401);
      const now = await me(res.body.token as string);
      expect(now.body).toMatchObject({ email: user.email, verified: true });
      expect((await login(user.email, 'reverted-password')).status).toBe(200);
      const again = await http(app)
        .post('/v1/auth/email-revert')
        .send({ token, password: 'reverted-password' });
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('INVALID_EMAIL_TOKEN');
    });

    it('refuses an expired revert token', async () => {
      const { user, newEmail, token } = await changeEmail();
      await expireEmailTokens(app, user.userId, 'email_revert');
      const res = await http(app)
        .post('/v1/auth/email-revert')
        .send({ token, password: 'reverted-password' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_EMAIL_TOKEN');
      expect((await me(user.token)).body.email).toBe(newEmail);
    });
  });

  describe('secrets at rest', () => {
    it('no issued token or password appears in any table, in any encoding', async () => {
      const user = await registerUser(app, { password: 'first-Secret-Passw0rd' });
      const verify = mailToken(app, user.email, 'verify');
      const second = (await login(user.email, user.password)).body.token as string;
      await http(app).post('/v1/auth/forgot').send({ email: user.email });
      const reset = mailToken(app, user.email, 'reset');
      const after = await http(app)
        .post('/v1/auth/reset')
        .send({ token: reset, password: 'second-Secret-Passw0rd' });
      expect(after.status).toBe(200);
      const handoff = await http(app).post('/v1/auth/handoff/initiate');
      const completed = await http(app)
        .post('/v1/auth/handoff/complete')
        .set('Authorization', after.body.token as string)
        .send({ code: handoff.body.code, token: after.body.token, user_id: user.userId });
      expect(completed.status).toBe(204);

      const secrets = [user.token, second, after.body.token as string, verify, reset];
      const passwords = ['first-Secret-Passw0rd', 'second-Secret-Passw0rd'];
      const needles = secretNeedles(passwords, secrets);
      expect(await findSecretsAtRest(app.get(DataSource), needles)).toEqual([]);
    });
  });
});

describe('mail through a real SMTP server', () => {
  const sink = new SmtpSink();
  let app: ParleyApp;
  beforeAll(async () => {
    const url = await sink.start();
    app = await createTestApp({
      env: { SMTP_URL: url, MAIL_FROM: 'Parley <no-reply@parley.test>' },
    });
  });
  afterAll(async () => {
    await app.close();
    await sink.stop();
  });

  it('delivers the reset mail; the token from the received message resets the password', async () => {
    const user = await registerUser(app);
    // Registration sent a verification mail too.
    const verifyRaw = await sink.waitFor(user.email, 'Verify your e-mail address');
    expect(verifyRaw).toMatch(/^From: Parley <no-reply@parley\.test>/m);
    const res = await http(app).post('/v1/auth/forgot').send({ email: user.email });
    expect(res.status).toBe(204);
    const raw = await sink.waitFor(user.email, 'Reset your password');
    const parts = mimeParts(raw);
    const text = parts.find((p) => p.contentType === 'text/plain');
    const html = parts.find((p) => p.contentType === 'text/html');
    expect(text?.body).toContain('http://app.parley.test/reset#token=');
    expect(html?.body).toContain('<a href="http://app.parley.test/reset#token=');
    const token = tokenOf(text?.body ?? '');
    const reset = await http(app)
      .post('/v1/auth/reset')
      .send({ token, password: 'smtp-delivered-password' });
    expect(reset.status).toBe(200);
    expect(reset.body.user_id).toBe(user.userId);
    // The log adapter stayed unused.
    expect(mailbox(app).last(user.email)).toBeUndefined();
  });
});

describe('e-mail flow rate limits', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp({
      env: { RATE_LIMIT_OVERRIDES: 'auth:forgot=2/60s,auth:verify=2/60s' },
    });
  });
  afterAll(() => app.close());

  it('puts forgot in auth:forgot and verify in auth:verify', async () => {
    for (const path of ['/v1/auth/forgot', '/v1/auth/verify']) {
      const body = path.endsWith('forgot') ? { email: 'x@example.com' } : { token: 'x' };
      await http(app).post(path).send(body);
      await http(app).post(path).send(body);
      const third = await http(app).post(path).send(body);
      expect(third.status).toBe(429);
      expect(third.body).toMatchObject({ code: 'RATE_LIMITED', global: false });
      expect(third.headers['x-ratelimit-bucket']).toBe(
        path.endsWith('forgot') ? 'auth:forgot' : 'auth:verify',
      );
    }
  });
});
