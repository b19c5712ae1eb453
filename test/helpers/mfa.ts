import type { ParleyApp } from '../../src/app.setup';
import WebAuthnEmulator, {
  AuthenticatorEmulator,
  PasskeysCredentialsMemoryRepository,
} from 'nid-webauthn-emulator';
import * as OTPAuth from 'otpauth';
import { DataSource } from 'typeorm';
import { http } from './app';
import type { TestUser } from './factories';

/** An independent RFC 6238 implementation (otpauth) for the secret the server handed out. */
export function totpOf(secret: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  });
}

/** The code of the 30-second step `offset` steps from now. */
export function totpCode(secret: string, offset = 0): string {
  return totpOf(secret).generate({ timestamp: Date.now() + offset * 30_000 });
}

/**
 * Waits, when the current 30-second step ends within 3 s, for the next one: a code of a
 * neighbouring step computed now stays within the server's ±1 step window until it is checked,
 * even on a loaded machine.
 */
export async function awayFromStepEdge(): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3_000) await new Promise((r) => setTimeout(r, left + 50));
}

export interface TotpEnrolment {
  secret: string;
  backupCodes: string[];
}

/** Sets up and confirms TOTP for the user through the API (re-authenticated by the password). */
export async function enableTotp(app: ParleyApp, user: TestUser): Promise<TotpEnrolment> {
  const setup = await http(app)
    .post('/v1/users/@me/mfa/totp/setup')
    .set('Authorization', user.token)
    .send({ password: user.password });
  if (setup.status !== 200) throw new Error(`TOTP set-up: ${setup.status} ${setup.text}`);
  const secret = setup.body.secret as string;
  // The confirming code spends the current step: later logins in the test use other steps.
  await awayFromStepEdge();
  const enable = await http(app)
    .post('/v1/users/@me/mfa/totp/enable')
    .set('Authorization', user.token)
    .send({ code: totpCode(secret, -1) });
  if (enable.status !== 200) throw new Error(`TOTP enable: ${enable.status} ${enable.text}`);
  const backupCodes = (enable.body.backup_codes as Array<{ code: string }>).map((c) => c.code);
  return { secret, backupCodes };
}

/** The web app origin the test apps accept WebAuthn responses from (WEB_APP_URL). */
export const WEBAUTHN_ORIGIN = 'http://app.parley.test';

/**
 * A software authenticator (nid-webauthn-emulator) with its own credential store (the library's
 * default store is shared by every instance). `userVerification: false` makes it answer without
 * the UV flag, like a security key without a PIN.
 */
export function softwareAuthenticator({ userVerification = true } = {}): WebAuthnEmulator {
  return new WebAuthnEmulator(
    new AuthenticatorEmulator({
      credentialsRepository: new PasskeysCredentialsMemoryRepository(),
      userGetAssertionInteraction: (user) => ({
        user,
        options: { uv: userVerification, up: true },
      }),
    }),
  );
}

/** Registers a credential of `authenticator` for the user through the API (password proof). */
export async function registerCredential(
  app: ParleyApp,
  user: TestUser,
  authenticator: WebAuthnEmulator,
  name = 'Test key',
): Promise<{ id: string; credentialId: string }> {
  const options = await http(app)
    .post('/v1/users/@me/mfa/webauthn/credentials/registration-options')
    .set('Authorization', user.token)
    .send({ password: user.password });
  if (options.status !== 200) throw new Error(`options: ${options.status} ${options.text}`);
  const response = authenticator.createJSON(WEBAUTHN_ORIGIN, options.body);
  const registered = await http(app)
    .post('/v1/users/@me/mfa/webauthn/credentials')
    .set('Authorization', user.token)
    .send({ name, challenge: options.body.challenge, response });
  if (registered.status !== 200)
    throw new Error(`register: ${registered.status} ${registered.text}`);
  return { id: registered.body.id as string, credentialId: response.id };
}

/** Ends the re-authentication grace of every session of the user (its proofs are 6 minutes old). */
export function ageProofs(app: ParleyApp, userId: string): Promise<unknown> {
  return app
    .get(DataSource)
    .query("UPDATE auth_sessions SET proven_at = now() - interval '6 minutes' WHERE user_id = $1", [
      userId,
    ]);
}

/** Logs in with the password; the account has MFA, so the answer is the MFA-required shape. */
export async function mfaTicketOf(
  app: ParleyApp,
  user: TestUser,
): Promise<{ ticket: string } & Record<string, unknown>> {
  const res = await http(app)
    .post('/v1/auth/login')
    .send({ email: user.email, password: user.password });
  if (res.status !== 200 || res.body.mfa !== true) {
    throw new Error(`expected an MFA-required login: ${res.status} ${res.text}`);
  }
  return res.body as { ticket: string } & Record<string, unknown>;
}
