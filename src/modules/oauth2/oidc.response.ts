import { ApiProperty } from '@nestjs/swagger';

/** OpenID Connect Discovery 1.0 provider metadata. */
export class OidcConfigurationResponse {
  /** PUBLIC_URL: the `iss` of every ID token. */
  @ApiProperty({ example: 'https://parley.example' })
  issuer: string;
  /** The web app's consent page. */
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  /** The ID-token signing keys. */
  @ApiProperty({ example: 'https://parley.example/v1/oauth2/keys' })
  jwks_uri: string;
  introspection_endpoint: string;
  revocation_endpoint: string;
  @ApiProperty({ type: [String], example: ['openid', 'profile', 'email'] })
  scopes_supported: string[];
  @ApiProperty({ type: [String], example: ['code'] })
  response_types_supported: string[];
  @ApiProperty({ type: [String], example: ['query'] })
  response_modes_supported: string[];
  @ApiProperty({ type: [String], example: ['authorization_code', 'refresh_token'] })
  grant_types_supported: string[];
  @ApiProperty({ type: [String], example: ['public'] })
  subject_types_supported: string[];
  /** The active key's algorithm (RS256 or EdDSA). */
  @ApiProperty({ type: [String], example: ['RS256'] })
  id_token_signing_alg_values_supported: string[];
  @ApiProperty({ type: [String], example: ['client_secret_basic', 'client_secret_post'] })
  token_endpoint_auth_methods_supported: string[];
  @ApiProperty({ type: [String], example: ['S256'] })
  code_challenge_methods_supported: string[];
  @ApiProperty({ type: [String], example: ['sub', 'email', 'email_verified'] })
  claims_supported: string[];
  /** No `claims` request parameter. */
  claims_parameter_supported: boolean;
  request_parameter_supported: boolean;
  request_uri_parameter_supported: boolean;
  service_documentation: string;
}

/** A public signing key (RFC 7517): RSA (`n`, `e`) or Ed25519 (`crv`, `x`); never private members. */
export class JwkResponse {
  /** Key id, in the ID token's header. */
  kid: string;
  @ApiProperty({ enum: ['RSA', 'OKP'] })
  kty: string;
  @ApiProperty({ enum: ['sig'] })
  use: string;
  @ApiProperty({ enum: ['RS256', 'EdDSA'] })
  alg: string;
  /** RSA modulus (base64url). */
  @ApiProperty({ required: false })
  n?: string;
  /** RSA exponent (base64url). */
  @ApiProperty({ required: false })
  e?: string;
  /** OKP curve (`Ed25519`). */
  @ApiProperty({ required: false })
  crv?: string;
  /** OKP public key (base64url). */
  @ApiProperty({ required: false })
  x?: string;
}

/** JSON Web Key Set: the active signing key first, then older keys kept for verification. */
export class JwksResponse {
  @ApiProperty({ type: [JwkResponse] })
  keys: JwkResponse[];
}
