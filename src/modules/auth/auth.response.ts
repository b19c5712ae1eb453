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
