// Request-body examples of the auth, account, MFA, WebAuthn and SSO routes (Swagger UI's "Try it
// out" pre-fills the first one). Each is a body the route's validation accepts.
import {
  EXAMPLE,
  WEBAUTHN_ASSERTION,
  WEBAUTHN_REGISTRATION,
  type BodyExamples,
} from '../../common/openapi/examples';

/**
 * The ways to confirm a sensitive change (ReauthDto), merged into the route's own fields: the
 * password, or — with MFA on — a TOTP code, a backup code or a WebAuthn assertion (whose challenge
 * comes from `POST /users/@me/mfa/webauthn/reauth-options`).
 */
export function reauthExamples(fields: object = {}, what = 'Confirm'): BodyExamples {
  return {
    password: {
      summary: `${what} with the password`,
      value: { ...fields, password: EXAMPLE.password },
    },
    totp: {
      summary: `${what} with a TOTP code (MFA on)`,
      value: { ...fields, mfa_method: 'totp', mfa_code: EXAMPLE.totpCode },
    },
    backup_code: {
      summary: `${what} with a backup code (MFA on)`,
      value: { ...fields, mfa_method: 'totp', mfa_code: EXAMPLE.backupCode },
    },
    webauthn: {
      summary: `${what} with a security key or passkey`,
      description:
        '`mfa_code` is the JSON text of `{challenge, response}`: the challenge of ' +
        '`POST /users/@me/mfa/webauthn/reauth-options` and what `navigator.credentials.get()` answered.',
      value: { ...fields, mfa_method: 'webauthn', mfa_code: JSON.stringify(WEBAUTHN_ASSERTION) },
    },
  };
}

export const REGISTER_EXAMPLES: BodyExamples = {
  account: {
    summary: 'An account with e-mail, password and username',
    value: {
      consent: true,
      date_of_birth: EXAMPLE.dateOfBirth,
      email: EXAMPLE.email,
      password: EXAMPLE.password,
      username: EXAMPLE.username,
      global_name: EXAMPLE.globalName,
    },
  },
  derived_username: {
    summary: 'Username derived from the display name',
    value: {
      consent: true,
      date_of_birth: EXAMPLE.dateOfBirth,
      email: EXAMPLE.email,
      password: EXAMPLE.password,
      global_name: EXAMPLE.globalName,
    },
  },
};

export const LOGIN_EXAMPLES: BodyExamples = {
  password: {
    summary: 'E-mail and password',
    value: { email: EXAMPLE.email, password: EXAMPLE.password },
  },
};

export const LOGOUT_SESSIONS_EXAMPLES: BodyExamples = {
  ...reauthExamples({ session_id_hashes: [EXAMPLE.sessionIdHash] }, 'End a session, confirmed'),
  recent_login: {
    summary: 'End a session within 5 minutes of logging in (no proof)',
    value: { session_id_hashes: [EXAMPLE.sessionIdHash] },
  },
};

export const EMAIL_TOKEN_EXAMPLES: BodyExamples = {
  token: { summary: 'The token from the e-mailed link', value: { token: EXAMPLE.emailToken } },
};

export const FORGOT_PASSWORD_EXAMPLES: BodyExamples = {
  email: { summary: "The account's e-mail address", value: { email: EXAMPLE.email } },
};

export const TOKEN_AND_PASSWORD_EXAMPLES: BodyExamples = {
  new_password: {
    summary: 'The e-mailed token and a new password',
    value: { token: EXAMPLE.emailToken, password: EXAMPLE.password },
  },
};

export const IP_TICKET_EXAMPLES: BodyExamples = {
  ticket: {
    summary: 'The ticket of the IP_AUTHORIZATION_REQUIRED answer',
    value: { ticket: EXAMPLE.ipTicket },
  },
};

export const HANDOFF_COMPLETE_EXAMPLES: BodyExamples = {
  code: {
    summary: 'The code the other device shows, with this session',
    value: { code: EXAMPLE.handoffCode, token: EXAMPLE.sessionToken, user_id: EXAMPLE.userId },
  },
};

export const USERNAME_SUGGESTIONS_EXAMPLES: BodyExamples = {
  latin: { summary: 'A display name', value: { global_name: EXAMPLE.globalName } },
  other_script: { summary: 'Any script', value: { global_name: 'Ада Лавлейс' } },
};

export const UPDATE_ACCOUNT_EXAMPLES: BodyExamples = {
  display_name: {
    summary: 'Change the display name (no proof needed)',
    value: { global_name: EXAMPLE.globalName },
  },
  username: { summary: 'Change the username', value: { username: EXAMPLE.username } },
  email: {
    summary: 'Change the e-mail address (confirmed with the password)',
    value: { email: EXAMPLE.newEmail, password: EXAMPLE.password },
  },
  new_password: {
    summary: 'Change the password (confirmed with the current one)',
    value: { new_password: EXAMPLE.newPassword, password: EXAMPLE.password },
  },
  new_password_totp: {
    summary: 'Change the password (confirmed with a TOTP code)',
    value: { new_password: EXAMPLE.newPassword, mfa_method: 'totp', mfa_code: EXAMPLE.totpCode },
  },
};

export const TOTP_ENABLE_EXAMPLES: BodyExamples = {
  code: {
    summary: "The authenticator app's current code",
    value: { code: EXAMPLE.totpCode },
  },
};

export const MFA_TICKET_EXAMPLES: BodyExamples = {
  ticket: {
    summary: 'The ticket of the MFA-required login answer',
    value: { ticket: EXAMPLE.mfaTicket },
  },
};

export const MFA_TOTP_LOGIN_EXAMPLES: BodyExamples = {
  totp: {
    summary: 'A TOTP code',
    value: { ticket: EXAMPLE.mfaTicket, code: EXAMPLE.totpCode },
  },
  backup_code: {
    summary: 'A backup code',
    value: { ticket: EXAMPLE.mfaTicket, code: EXAMPLE.backupCode },
  },
};

export const MFA_SMS_LOGIN_EXAMPLES: BodyExamples = {
  sms: {
    summary: 'The texted code',
    value: { ticket: EXAMPLE.mfaTicket, code: EXAMPLE.smsCode },
  },
};

export const ADD_PHONE_EXAMPLES: BodyExamples = {
  password: {
    summary: 'An E.164 number, confirmed with the password',
    value: { phone: EXAMPLE.phone, password: EXAMPLE.password },
  },
  recent_login: {
    summary: 'Within 5 minutes of logging in (no proof)',
    value: { phone: EXAMPLE.phone },
  },
};

export const VERIFY_PHONE_EXAMPLES: BodyExamples = {
  code: { summary: 'The texted code', value: { code: EXAMPLE.smsCode } },
};

export const REGISTER_WEBAUTHN_EXAMPLES: BodyExamples = {
  security_key: {
    summary: "A security key's answer to the registration options",
    description:
      '`challenge` from `POST /users/@me/mfa/webauthn/credentials/registration-options`, ' +
      '`response` as `navigator.credentials.create()` answered it (JSON).',
    value: { name: 'YubiKey 5C', ...WEBAUTHN_REGISTRATION },
  },
};

export const RENAME_WEBAUTHN_EXAMPLES: BodyExamples = {
  name: { summary: 'A new name', value: { name: 'Laptop passkey' } },
};

export const WEBAUTHN_MFA_LOGIN_EXAMPLES: BodyExamples = {
  assertion: {
    summary: 'An assertion for the options of this ticket',
    value: { ticket: EXAMPLE.mfaTicket, ...WEBAUTHN_ASSERTION },
  },
};

export const WEBAUTHN_AUTHENTICATE_EXAMPLES: BodyExamples = {
  passkey: {
    summary: 'A passkey assertion for the passwordless options',
    value: { ...WEBAUTHN_ASSERTION },
  },
};

export const SSO_START_EXAMPLES: BodyExamples = {
  redirect_to: {
    summary: 'Come back to a page of the web app',
    value: { redirect_to: '/channels/@me' },
  },
  default: { summary: "Come back to the web app's root", value: {} },
};

export const SSO_COMPLETE_EXAMPLES: BodyExamples = {
  code: {
    summary: 'What the issuer appended to the redirect URI',
    value: { code: EXAMPLE.ssoCode, state: EXAMPLE.ssoState },
  },
};
