import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { UserEntity } from '../../users/user.entity';

/** AuthenticatorType values (spec "Auth resources"). */
export enum AuthenticatorType {
  Totp = 0,
  Sms = 1,
  WebAuthn = 2,
}

export type SecondFactorMethod = 'totp' | 'sms' | 'webauthn';

export const METHOD_OF_TYPE: Record<AuthenticatorType, SecondFactorMethod> = {
  [AuthenticatorType.Totp]: 'totp',
  [AuthenticatorType.Sms]: 'sms',
  [AuthenticatorType.WebAuthn]: 'webauthn',
};

/** Where a second-factor proof is being used: the second step of a login, or a re-authentication. */
export type SecondFactorContext =
  { kind: 'login'; ticketId: string } | { kind: 'reauth'; sessionId: string };

export interface SecondFactorCheck {
  user: UserEntity;
  /** What the client sent: a code (TOTP, SMS, backup code) or a WebAuthn `{challenge, response}`. */
  proof: unknown;
  context: SecondFactorContext;
  /** The transaction of the login or re-authentication (state the proof spends is written in it). */
  manager: EntityManager;
}

/**
 * One second factor. `verify` answers false for a wrong proof (it is counted against the ticket)
 * and throws an ApiError only for input that is malformed; whatever the proof spends (a TOTP step,
 * a backup code, a challenge) is written through `check.manager`, so it is spent exactly when the
 * login or re-authentication commits — and also when a wrong proof is counted.
 */
export interface SecondFactor {
  readonly method: SecondFactorMethod;
  verify(check: SecondFactorCheck): Promise<boolean>;
}

/** The second factors the factor modules (TOTP, SMS, WebAuthn) register at start-up. */
@Injectable()
export class SecondFactors {
  private readonly factors = new Map<SecondFactorMethod, SecondFactor>();

  register(factor: SecondFactor): void {
    this.factors.set(factor.method, factor);
  }

  get(method: SecondFactorMethod): SecondFactor | undefined {
    return this.factors.get(method);
  }

  /** The methods this user can log in with (enrolled, and a factor module is running). */
  methodsOf(user: Pick<UserEntity, 'authenticatorTypes'>): SecondFactorMethod[] {
    const methods = user.authenticatorTypes
      .map((t) => METHOD_OF_TYPE[t as AuthenticatorType])
      .filter((m): m is SecondFactorMethod => m !== undefined && this.factors.has(m));
    return [...new Set(methods)];
  }
}
