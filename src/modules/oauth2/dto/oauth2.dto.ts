import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';

export class AuthorizeConsentDto {
  /** The application id. */
  @IsString()
  @Matches(/^\d{1,20}$/, {
    message: 'client_id must be a snowflake',
    context: { code: FieldErrorCode.BaseTypeSnowflake },
  })
  client_id: string;

  /** Space-separated scopes: identify, email, guilds, bot, openid, profile. */
  @IsString()
  @MaxLength(200)
  scope: string;

  /** Guild to add the bot to (`bot` scope). */
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,20}$/, {
    message: 'guild_id must be a snowflake',
    context: { code: FieldErrorCode.BaseTypeSnowflake },
  })
  guild_id?: string;

  /** Permission bitfield (decimal string) for the bot's role. */
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,20}$/, {
    message: 'permissions must be a decimal bitfield',
    context: { code: FieldErrorCode.PermissionsInvalid },
  })
  permissions?: string;

  /** Must equal one of the application's registered redirect URIs. */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  redirect_uri?: string;

  /** Only `code`. */
  @IsOptional()
  @IsIn(['code'], { message: 'response_type must be "code"' })
  response_type?: string;

  /** Returned unchanged in the redirect. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  state?: string;

  /** OpenID Connect: repeated in the ID token so the client can bind it to its request (1-255). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  nonce?: string;

  /** PKCE (RFC 7636) S256 challenge: base64url, 43-128 characters. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._~-]{43,128}$/, {
    message: 'code_challenge must be 43-128 unreserved characters',
    context: { code: FieldErrorCode.CodeChallengeInvalid },
  })
  code_challenge?: string;

  /** Only `S256` (`plain` is refused). */
  @IsOptional()
  @IsIn(['S256'], {
    message: 'code_challenge_method must be S256',
    context: { code: FieldErrorCode.CodeChallengeMethodUnsupported },
  })
  code_challenge_method?: string;
}

// Declared a string with a pattern: Swagger UI's form editor would otherwise send the id as a
// number, and 64-bit ids do not survive that.
const CLIENT_ID = {
  type: String,
  pattern: '^[0-9]{1,20}$',
  required: false,
  description:
    'The application id, with `client_secret`, when the client does not authenticate with HTTP ' +
    'Basic (one method per request; with Basic, a `client_id` must equal its username).',
};
const CLIENT_SECRET = {
  type: String,
  required: false,
  description: 'With `client_id`, when the client does not authenticate with HTTP Basic.',
};

/** TokenRequest (form-encoded or JSON); documented here, parsed by hand (RFC 6749 errors). */
export class TokenRequestDto {
  @ApiProperty({ enum: ['authorization_code', 'refresh_token'] })
  grant_type: string;
  /** authorization_code: the code from the redirect. */
  code?: string;
  /** authorization_code: the redirect_uri of the consent request. */
  redirect_uri?: string;
  /** authorization_code: the PKCE verifier when a challenge was sent. */
  code_verifier?: string;
  /** refresh_token: the refresh token (single-use). */
  refresh_token?: string;
  /** Optional narrowing of the scopes (refresh_token). */
  scope?: string;
  @ApiProperty(CLIENT_ID)
  client_id?: string;
  @ApiProperty(CLIENT_SECRET)
  client_secret?: string;
}

export class IntrospectRequestDto {
  token: string;
  @ApiProperty({ enum: ['access_token', 'refresh_token'], required: false })
  token_type_hint?: string;
  @ApiProperty(CLIENT_ID)
  client_id?: string;
  @ApiProperty(CLIENT_SECRET)
  client_secret?: string;
}

export class RevokeRequestDto {
  token: string;
  @ApiProperty({ enum: ['access_token', 'refresh_token'], required: false })
  token_type_hint?: string;
  @ApiProperty(CLIENT_ID)
  client_id?: string;
  @ApiProperty(CLIENT_SECRET)
  client_secret?: string;
}
