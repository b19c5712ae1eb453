import type { ParleyApp } from '../../src/app.setup';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { sha256 } from '../../src/common/crypto/tokens';
import { createTestApp } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { createApplication, type TestApplication } from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';

const run = promisify(execFile);
const SCRIPT = join(__dirname, 'openid-client-flow.mjs');
const REDIRECT = 'http://127.0.0.1/callback';

interface FlowResult {
  error?: string;
  issuer: string;
  token: { token_type: string; scope: string; expires_in: number };
  refresh_rotated: boolean;
  access_rotated: boolean;
  userinfo_status: number;
  userinfo: Record<string, unknown>;
  introspection: Record<string, unknown>;
  after_revocation: Record<string, unknown>;
}

describe('OAuth2 with the real openid-client v6', () => {
  let app: ParleyApp;
  let issuer: string;
  let user: TestUser;
  let client: TestApplication;

  beforeAll(async () => {
    // openid-client checks that the metadata's issuer equals the URL it discovered, so the app must
    // know its own URL at boot: reserve a free port first, then listen on it.
    const port = await serverPort();
    issuer = `http://127.0.0.1:${port}`;
    app = await createTestApp({ env: { PUBLIC_URL: issuer } });
    await app.listen(port, '127.0.0.1');
    const owner = await registerUser(app);
    user = await registerUser(app);
    client = await createApplication(app, owner, { redirect_uris: [REDIRECT] });
  });
  afterAll(() => app.close());

  async function flow(clientId: string, secret: string, method: 'post' | 'basic') {
    const { stdout } = await run(
      process.execPath,
      [SCRIPT, issuer, clientId, secret, REDIRECT, user.token, method],
      { timeout: 30_000 },
    ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as FlowResult;
    expect(result.error).toBeUndefined();
    expect(result.issuer).toBe(issuer);
    expect(result.token).toEqual({
      token_type: 'bearer',
      scope: 'identify email',
      expires_in: 7 * 24 * 3600,
    });
    expect(result.refresh_rotated).toBe(true);
    expect(result.access_rotated).toBe(true);
    expect(result.userinfo_status).toBe(200);
    expect(result.userinfo).toMatchObject({
      sub: user.userId,
      id: user.userId,
      username: user.username,
      email: user.email,
    });
    expect(result.introspection).toMatchObject({
      active: true,
      client_id: clientId,
      sub: user.userId,
      scope: 'identify email',
      token_type: 'Bearer',
      username: user.username,
    });
    expect(result.after_revocation).toEqual({ active: false });
  }

  it('runs discovery, code+PKCE, refresh, userinfo, introspection and revocation (client_secret_post)', async () => {
    await flow(client.id, client.clientSecret, 'post');
  });

  it('does the same with client_secret_basic', async () => {
    await flow(client.id, client.clientSecret, 'basic');
  });

  it('client_secret_basic with a secret that needs form-encoding (+ % : space é)', async () => {
    // Generated secrets are URL-safe base64url, which hides encoding bugs. Plant a secret that
    // openid-client must form-urlencode before base64 (RFC 6749 §2.3.1) and we must decode.
    const other = await createApplication(app, await registerUser(app), {
      redirect_uris: [REDIRECT],
    });
    const secret = 'p+l%a:n t/é~';
    await app
      .get(DataSource)
      .query('UPDATE oauth2_applications SET client_secret_hash = $1 WHERE id = $2', [
        sha256(secret),
        other.id,
      ]);
    await flow(other.id, secret, 'basic');
    await flow(other.id, secret, 'post');
  });
});
