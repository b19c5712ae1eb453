import type { NestExpressApplication } from '@nestjs/platform-express';
import * as OTPAuth from 'otpauth';
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

export interface TotpEnrolment {
  secret: string;
  backupCodes: string[];
}

/** Sets up and confirms TOTP for the user through the API (re-authenticated by the password). */
export async function enableTotp(
  app: NestExpressApplication,
  user: TestUser,
): Promise<TotpEnrolment> {
  const setup = await http(app)
    .post('/v1/users/@me/mfa/totp/setup')
    .set('Authorization', user.token)
    .send({ password: user.password });
  if (setup.status !== 200) throw new Error(`TOTP set-up: ${setup.status} ${setup.text}`);
  const secret = setup.body.secret as string;
  // The confirming code spends the current step: later logins in the test use other steps.
  const enable = await http(app)
    .post('/v1/users/@me/mfa/totp/enable')
    .set('Authorization', user.token)
    .send({ code: totpCode(secret, -1) });
  if (enable.status !== 200) throw new Error(`TOTP enable: ${enable.status} ${enable.text}`);
  const backupCodes = (enable.body.backup_codes as Array<{ code: string }>).map((c) => c.code);
  return { secret, backupCodes };
}
