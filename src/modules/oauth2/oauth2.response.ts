import { ApiProperty } from '@nestjs/swagger';

export class OAuth2ConsentResponse {
  /** Where to send the user: the redirect_uri with `code` and `state`. */
  redirect_to: string;
}

export class OAuth2TokenResponse {
  access_token: string;
  @ApiProperty({ example: 'Bearer' })
  token_type: string;
  /** Seconds until the access token expires. */
  @ApiProperty({ example: 604800 })
  expires_in: number;
  /** Single-use: every refresh returns a new one. */
  refresh_token: string;
  /** Space-separated granted scopes. */
  @ApiProperty({ example: 'identify email' })
  scope: string;
  /** OpenID Connect ID token (a signed JWT), only when the scopes include `openid`. */
  @ApiProperty({ required: false })
  id_token?: string;
}

/** RFC 7662 introspection result; only `active` when the token is not active for this client. */
export class OAuth2IntrospectResponse {
  active: boolean;
  @ApiProperty({ required: false })
  client_id?: string;
  /** The user the token acts for. */
  @ApiProperty({ required: false })
  sub?: string;
  @ApiProperty({ required: false })
  scope?: string;
  /** `Bearer` for access tokens, `refresh_token` for refresh tokens. */
  @ApiProperty({ required: false })
  token_type?: string;
  /** Expiry, Unix seconds. */
  @ApiProperty({ required: false })
  exp?: number;
  /** Issue time, Unix seconds. */
  @ApiProperty({ required: false })
  iat?: number;
  @ApiProperty({ required: false })
  username?: string;
}

export class OAuth2ApplicationSummary {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  bot_public: boolean;
  bot_require_code_grant: boolean;
  /** ApplicationFlags. */
  flags: number;
}

export class OAuth2MeUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  avatar_color: number | null;
  /** PublicUserFlags. */
  flags: number;
  bot?: boolean;
  system?: boolean;
  /** Only with the `email` scope. */
  email?: string | null;
  /** Only with the `email` scope. */
  verified?: boolean | null;
}

export class OAuth2MeResponse {
  application: OAuth2ApplicationSummary;
  @ApiProperty({ type: [String] })
  scopes: string[];
  /** When the access token expires (ISO 8601). */
  expires: string;
  /** Only with the `identify` scope. */
  user?: OAuth2MeUser;
}

export class OAuth2AuthorizationApplication {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  bot_public: boolean;
}

export class OAuth2AuthorizationResponse {
  application: OAuth2AuthorizationApplication;
  @ApiProperty({ type: [String] })
  scopes: string[];
  authorized_at: string;
}

export class OAuth2UserInfoResponse {
  /** Subject: the user id (always). */
  sub: string;
  /** Only with `identify` or `profile`. */
  id?: string;
  /** Only with `identify` or `profile`. */
  username?: string;
  /** Only with `identify` or `profile`. */
  discriminator?: string;
  /** Only with `identify` or `profile`. */
  global_name?: string | null;
  /** Only with `identify` or `profile`. */
  avatar?: string | null;
  /** Only with `identify` or `profile`. */
  flags?: number;
  /** Only with the `email` scope. */
  email?: string | null;
  /** Only with the `email` scope. */
  verified?: boolean | null;
  /** OpenID Connect: when the user authenticated (Unix seconds) before authorizing the grant. */
  @ApiProperty({ example: 1795500000 })
  auth_time: number;
  /** OpenID Connect: the display name, else the username; only with `identify` or `profile`. */
  name?: string;
  /** OpenID Connect: the username; only with `identify` or `profile`. */
  preferred_username?: string;
  /** OpenID Connect: whether the e-mail address is verified; only with the `email` scope. */
  @ApiProperty({ required: false })
  email_verified?: boolean;
}

/** RFC 8414 authorization server metadata. */
export class OAuth2ServerMetadataResponse {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  introspection_endpoint: string;
  revocation_endpoint: string;
  userinfo_endpoint: string;
  /** The ID-token signing keys (JWKS). */
  jwks_uri: string;
  @ApiProperty({ type: [String] })
  scopes_supported: string[];
  @ApiProperty({ type: [String] })
  response_types_supported: string[];
  @ApiProperty({ type: [String] })
  grant_types_supported: string[];
  @ApiProperty({ type: [String] })
  token_endpoint_auth_methods_supported: string[];
  @ApiProperty({ type: [String] })
  introspection_endpoint_auth_methods_supported: string[];
  @ApiProperty({ type: [String] })
  revocation_endpoint_auth_methods_supported: string[];
  @ApiProperty({ type: [String] })
  code_challenge_methods_supported: string[];
  service_documentation: string;
}
