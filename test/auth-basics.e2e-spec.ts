import type { ParleyApp } from '../src/app.setup';
import { createTestApp, http, unique } from './helpers/app';
import { registerUser } from './helpers/factories';

describe('accounts: register, login, @me, logout', () => {
  let app: ParleyApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('registers, then reads the account with the session token', async () => {
    const user = await registerUser(app, { global_name: 'Ünïcode Näme' });
    expect(user.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: user.userId,
      username: user.username,
      discriminator: expect.stringMatching(/^\d{4}$/),
      global_name: 'Ünïcode Näme',
      email: user.email,
      verified: false,
      mfa_enabled: false,
      authenticator_types: [],
      date_of_birth: '1990-01-01',
      flags: 0,
    });
    expect(me.body).not.toHaveProperty('password_hash');
    expect(me.body).not.toHaveProperty('passwordHash');
    // `Bearer <session token>` falls back to the session.
    const bearer = await http(app)
      .get('/v1/users/@me')
      .set('Authorization', `Bearer ${user.token}`);
    expect(bearer.status).toBe(200);
  });

  it('derives the username from global_name when none is given (transliterated slug)', async () => {
    const user = await registerUser(app, { username: undefined, global_name: 'Zoë Łukasz!' });
    const me = await http(app).get('/v1/users/@me').set('Authorization', user.token);
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('zoe_lukasz');
    const nameless = await registerUser(app, { username: undefined });
    const me2 = await http(app).get('/v1/users/@me').set('Authorization', nameless.token);
    expect(me2.body.username).toBe('user');
  });

  it('refuses @me without credentials', async () => {
    const res = await http(app).get('/v1/users/@me');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('logs in with the password and logs out', async () => {
    const user = await registerUser(app);
    const login = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email.toUpperCase(), password: user.password });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ token: expect.any(String), user_id: user.userId });
    expect(login.body.token).not.toBe(user.token);
    const out = await http(app).post('/v1/auth/logout').set('Authorization', login.body.token);
    expect(out.status).toBe(204);
    expect(
      (await http(app).get('/v1/users/@me').set('Authorization', login.body.token)).status,
    ).toBe(401);
    // The other session is untouched.
    expect((await http(app).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(
      200,
    );
  });

  it('answers a wrong password and an unknown e-mail identically', async () => {
    const user = await registerUser(app);
    const wrong = await http(app)
      .post('/v1/auth/login')
      .send({ email: user.email, password: 'not-the-password' });
    const unknown = await http(app)
      .post('/v1/auth/login')
      .send({ email: `${unique('nobody')}@example.com`, password: 'not-the-password' });
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.code).toBe('INVALID_FORM_BODY');
  });

  it('rejects invalid registrations with field paths', async () => {
    const res = await http(app).post('/v1/auth/register').send({
      consent: false,
      date_of_birth: '1990/01/01',
      email: 'nope',
      username: 'a b',
      password: 'short',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_FORM_BODY');
    const paths = res.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'consent:CONSENT_REQUIRED',
        'date_of_birth:DATE_OF_BIRTH_INVALID',
        'email:INVALID_EMAIL',
        'username:USERNAME_INVALID',
        'password:PASSWORD_LENGTH',
      ]),
    );
  });

  it('enforces the minimum age and unique e-mail', async () => {
    const young = new Date();
    young.setUTCFullYear(young.getUTCFullYear() - 12);
    const underage = await http(app)
      .post('/v1/auth/register')
      .send({ consent: true, date_of_birth: young.toISOString().slice(0, 10) });
    expect(underage.status).toBe(400);
    expect(underage.body.errors).toEqual([
      expect.objectContaining({ path: 'date_of_birth', code: 'DATE_OF_BIRTH_UNDERAGE' }),
    ]);
    const user = await registerUser(app);
    const dup = await http(app).post('/v1/auth/register').send({
      consent: true,
      date_of_birth: '1990-01-01',
      email: user.email.toUpperCase(),
      password: 'another-password',
    });
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([
      expect.objectContaining({ path: 'email', code: 'EMAIL_ALREADY_REGISTERED' }),
    ]);
  });

  it('gives the same username different discriminators', async () => {
    const name = unique('same_').slice(0, 32);
    const a = await registerUser(app, { username: name, email: `${name}a@example.com` });
    const b = await registerUser(app, { username: name, email: `${name}b@example.com` });
    const ma = await http(app).get('/v1/users/@me').set('Authorization', a.token);
    const mb = await http(app).get('/v1/users/@me').set('Authorization', b.token);
    expect(ma.body.username).toBe(mb.body.username);
    expect(ma.body.discriminator).not.toBe(mb.body.discriminator);
  });
});
