import type { ParleyApp } from '../src/app.setup';
import { DataSource } from 'typeorm';
import { decryptSecret } from '../src/common/crypto/tokens';
import { SweeperService } from '../src/common/maintenance/sweeper.service';
import { createTestApp, http, TEST_SECRET_KEY } from './helpers/app';
import { registerUser } from './helpers/factories';

describe('maintenance sweeps', () => {
  let app: ParleyApp;
  let db: DataSource;
  let sweeper: SweeperService;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    sweeper = app.get(SweeperService);
  });
  afterAll(() => app.close());

  it('ends the session of a handoff that expired unread, and wipes its sealed token', async () => {
    const user = await registerUser(app);
    const init = await http(app).post('/v1/auth/handoff/initiate').send({});
    expect(init.status).toBe(200);
    const done = await http(app)
      .post('/v1/auth/handoff/complete')
      .set('Authorization', user.token)
      .send({ code: init.body.code, token: user.token, user_id: user.userId });
    expect(done.status).toBe(204);
    const [row] = await db.query<Array<{ id: string; sealed_token: string }>>(
      'SELECT id, sealed_token FROM auth_handoffs WHERE user_id = $1',
      [user.userId],
    );
    const minted = decryptSecret(Buffer.from(TEST_SECRET_KEY, 'hex'), row.sealed_token);
    expect((await http(app).get('/v1/users/@me').set('Authorization', minted)).status).toBe(200);

    // Nobody reads the result before the TTL.
    await db.query(
      "UPDATE auth_handoffs SET expires_at = now() - interval '1 second' WHERE id = $1",
      [row.id],
    );
    const counts = await sweeper.runOnce();
    expect(counts.auth_handoffs).toBeGreaterThanOrEqual(1);

    expect((await http(app).get('/v1/users/@me').set('Authorization', minted)).status).toBe(401);
    expect((await http(app).get('/v1/users/@me').set('Authorization', user.token)).status).toBe(
      200,
    );
    const [after] = await db.query<Array<{ sealed_token: string | null }>>(
      'SELECT sealed_token FROM auth_handoffs WHERE id = $1',
      [row.id],
    );
    expect(after.sealed_token).toBeNull();
    const status = await http(app).get(`/v1/auth/handoff/${init.body.code}/status`);
    expect(status.body).toEqual({ status: 'expired' });
  });

  it('deletes e-mail tokens a day past expiry and keeps live ones', async () => {
    const user = await registerUser(app);
    const rows = await db.query<Array<{ id: string }>>(
      'SELECT id FROM email_tokens WHERE user_id = $1',
      [user.userId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    const [old] = rows;
    await db.query("UPDATE email_tokens SET expires_at = now() - interval '2 days' WHERE id = $1", [
      old.id,
    ]);
    const other = await registerUser(app);
    await sweeper.runOnce();
    const left = await db.query<Array<{ id: string }>>(
      'SELECT id FROM email_tokens WHERE id = $1',
      [old.id],
    );
    expect(left).toEqual([]);
    const live = await db.query<unknown[]>('SELECT 1 FROM email_tokens WHERE user_id = $1', [
      other.userId,
    ]);
    expect(live.length).toBeGreaterThanOrEqual(1);
  });

  it('runs every registered task and reports counts per task', async () => {
    const counts = await sweeper.runOnce();
    expect(Object.keys(counts).sort()).toEqual(
      [
        'archive_files',
        'attachment_files',
        'auth_handoffs',
        'auth_tickets',
        'email_tokens',
        'mfa_sms_codes',
        'oauth2_codes',
        'oauth2_tokens',
        'sso_states',
        'webauthn_challenges',
        'webhook_deliveries',
      ].sort(),
    );
    for (const n of Object.values(counts)) expect(Number.isInteger(n)).toBe(true);
  });
});
