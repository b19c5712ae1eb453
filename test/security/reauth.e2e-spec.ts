import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { ageProofs, enableTotp } from '../helpers/mfa';
import { createApplication } from '../helpers/oauth2-factories';

/**
 * Security finding 6: resetting a bot token and deleting an application are as sensitive as
 * resetting the client secret — they go through the re-authentication service: a proof in the
 * body (the password, or a second factor once the account has MFA), or a proof younger than
 * 5 minutes on this very session (never a handed-off one).
 */
describe('sensitive application actions ask for a re-authentication', () => {
  let app: ParleyApp;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const resetToken = (token: string, id: string, body?: Record<string, unknown>) => {
    const req = http(app)
      .post(`/v1/oauth2/applications/${id}/bot/reset-token`)
      .set('Authorization', token);
    return body === undefined ? req : req.send(body);
  };
  const remove = (token: string, id: string, body?: Record<string, unknown>) => {
    const req = http(app).delete(`/v1/oauth2/applications/${id}`).set('Authorization', token);
    return body === undefined ? req : req.send(body);
  };
  const proofRequired = (res: { status: number; body: { errors?: unknown } }) => {
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ path: 'password', code: 'PASSWORD_REQUIRED' }),
    ]);
  };

  it('an MFA account past the 5-minute grace: no proof → 400; a second factor → done', async () => {
    const owner = await registerUser(app);
    const a = await createApplication(app, owner);
    const { backupCodes } = await enableTotp(app, owner);
    await ageProofs(app, owner.userId);

    proofRequired(await resetToken(owner.token, a.id, {}));
    proofRequired(await resetToken(owner.token, a.id));
    proofRequired(await remove(owner.token, a.id, {}));
    proofRequired(await remove(owner.token, a.id));
    // Nothing happened: the old bot token still works, the application is there.
    const still = await http(app)
      .get('/v1/applications/@me')
      .set('Authorization', `Bot ${a.botToken}`);
    expect(still.status).toBe(200);

    const wrong = await resetToken(owner.token, a.id, { mfa_method: 'totp', mfa_code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_MFA_CODE');
    const reset = await resetToken(owner.token, a.id, {
      mfa_method: 'totp',
      mfa_code: backupCodes[0],
    });
    expect(reset.status).toBe(200);
    expect(reset.body.token).toMatch(new RegExp(`^${a.id}\\.`));
    // That proof opened a new grace on this session: deleting needs none for 5 minutes.
    expect((await remove(owner.token, a.id)).status).toBe(204);
  });

  it('a session handed to another device has no grace of its own', async () => {
    const owner: TestUser = await registerUser(app);
    const a = await createApplication(app, owner);
    const { code } = (await http(app).post('/v1/auth/handoff/initiate')).body as { code: string };
    const done = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', owner.token)
      .send({ code, token: owner.token, user_id: owner.userId });
    expect(done.status).toBe(204);
    const handedOff = (await http(app).get(`/v1/auth/handoff/${code}/status`)).body.token as string;

    proofRequired(await resetToken(handedOff, a.id, {}));
    proofRequired(await remove(handedOff, a.id, {}));
    const withPassword = await remove(handedOff, a.id, { password: owner.password });
    expect(withPassword.status).toBe(204);
  });

  it('an account without MFA past the grace: the password', async () => {
    const owner = await registerUser(app);
    const a = await createApplication(app, owner);
    await ageProofs(app, owner.userId);
    proofRequired(await resetToken(owner.token, a.id, {}));
    const bad = await resetToken(owner.token, a.id, { password: 'not-the-password' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('PASSWORD_DOES_NOT_MATCH');
    expect((await resetToken(owner.token, a.id, { password: owner.password })).status).toBe(200);
  });
});
