import { ApiProperty } from '@nestjs/swagger';

export class AuthTokenWithUserIdResponse {
  /** Session token: send it as the `Authorization` header, without a prefix. */
  token: string;
  @ApiProperty({ example: '1234567890123456789' })
  user_id: string;
}

/** Returned by login instead of a token when the account has a second factor. */
export class AuthMfaRequiredResponse {
  @ApiProperty({ enum: [true] })
  mfa: true;
  /** Single-use MFA ticket, valid 5 minutes. */
  ticket: string;
  @ApiProperty({ type: [String], example: ['totp', 'webauthn'] })
  allowed_methods: string[];
  totp: boolean;
  sms: boolean;
  webauthn: boolean;
  sms_phone_hint?: string | null;
}

export type AuthLoginResult = AuthTokenWithUserIdResponse | AuthMfaRequiredResponse;

export class IpAuthorizationPollResponse {
  completed: boolean;
  /** The new session token (only on the first completed poll). */
  token?: string | null;
  @ApiProperty({ required: false, nullable: true, example: '1234567890123456789' })
  user_id?: string | null;
}

export class AuthSessionClientLocation {
  city: string | null;
  country: string | null;
  region: string | null;
}

export class AuthSessionClientInfo {
  browser: string | null;
  os: string | null;
  /** `desktop`, `mobile`, `tablet`, … */
  platform: string | null;
  @ApiProperty({ type: AuthSessionClientLocation, nullable: true })
  location: AuthSessionClientLocation | null;
}

export class AuthSessionResponse {
  /** base64url SHA-256 of the session token: the session's public identifier. */
  @ApiProperty({ example: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg' })
  id_hash: string;
  /** When the session was last used (updated at most once a minute). */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  approx_last_used_at: string | null;
  @ApiProperty({ type: AuthSessionClientInfo, nullable: true })
  client_info: AuthSessionClientInfo | null;
  /** Whether this is the session making the request. */
  current: boolean;
}

export class HandoffInitiateResponse {
  /** `XXXX-XXXX`, to be shown on this device and typed on a logged-in one. */
  @ApiProperty({ example: 'K7PD-3QXM' })
  code: string;
  @ApiProperty({ type: String, format: 'date-time' })
  expires_at: string;
}

export class HandoffStatusResponse {
  @ApiProperty({ enum: ['pending', 'completed', 'expired'] })
  status: 'pending' | 'completed' | 'expired';
  /** The new session token (once, with `completed`). */
  token?: string | null;
  @ApiProperty({ required: false, nullable: true, example: '1234567890123456789' })
  user_id?: string | null;
}

export class UsernameSuggestionsResponse {
  @ApiProperty({ type: [String], example: ['zoe_lukasz', 'zoelukasz', 'zoe_lukasz_42'] })
  suggestions: string[];
}
