/** SsoStatusResponse. */
export class SsoStatusResponse {
  /** The identity provider's name to show on the button. */
  display_name: string | null;
  enabled: boolean;
  /** SSO required for all users: password login, registration and reset answer 403 SSO_REQUIRED. */
  enforced: boolean;
  /** The redirect URI registered at the issuer. */
  redirect_uri: string;
}

/** SsoStartResponse. */
export class SsoStartResponse {
  /** Send the browser here (the issuer's authorization endpoint, with PKCE S256 and a nonce). */
  authorization_url: string;
  redirect_uri: string;
  /** Single use, valid 10 minutes: post it back with the code. */
  state: string;
}

/** SsoCompleteResponse. */
export class SsoCompleteResponse {
  /** A session token. */
  token: string;
  user_id: string;
  /** Where the web app goes next (the start request's `redirect_to`). */
  redirect_to: string;
}

/** SsoConfigResponse: the instance's SSO configuration, without the client secret. */
export class SsoConfigResponse {
  enabled: boolean;
  display_name: string | null;
  issuer: string | null;
  client_id: string | null;
  /** Whether `SSO_CLIENT_SECRET` is set (the secret itself is never shown). */
  client_secret_set: boolean;
  redirect_uri: string | null;
  scope: string | null;
  allowed_domains: string[];
  auto_provision: boolean;
  /** From the issuer's discovery document; null when it could not be read. */
  authorization_url: string | null;
  token_url: string | null;
  userinfo_url: string | null;
  jwks_url: string | null;
}
