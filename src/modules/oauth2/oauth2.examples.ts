// Request-body examples of the OAuth2 routes (Swagger UI pre-fills the first). The token,
// introspection and revocation examples carry no client credentials: authorize with
// `clientBasic` (application id and client secret) in Swagger UI, else the body's `client_id`
// conflicts with them. One variant per route shows the body credentials instead.
import { EXAMPLE, type BodyExamples } from '../../common/openapi/examples';
import { reauthExamples } from '../auth/auth.examples';

export const CREATE_APPLICATION_EXAMPLES: BodyExamples = {
  web_app: {
    summary: 'An application with a redirect URI and a public bot',
    value: {
      name: 'Engine Dashboard',
      redirect_uris: [EXAMPLE.redirectUri],
      bot_public: true,
      bot_require_code_grant: false,
    },
  },
  bot_only: {
    summary: 'Just a name (a bot, no OAuth2 redirects yet)',
    value: { name: 'Engine Bot' },
  },
};

export const UPDATE_APPLICATION_EXAMPLES: BodyExamples = {
  rename: { summary: 'Rename the application', value: { name: 'Engine Dashboard (beta)' } },
  redirect_uris: {
    summary: 'Replace the redirect URIs',
    value: { redirect_uris: [EXAMPLE.redirectUri, 'http://localhost:3000/callback'] },
  },
  private_bot: { summary: 'Only the owner may add the bot', value: { bot_public: false } },
  // No example sets a URL: it is verified by calling it, and an example's host answers nothing.
  gateway_interactions: {
    summary: 'Clear the interactions endpoint: interactions arrive on the gateway',
    value: { interactions_endpoint_url: null },
  },
};

export const CURRENT_APPLICATION_UPDATE_EXAMPLES: BodyExamples = {
  description: {
    summary: 'Describe the application',
    value: { description: 'Posts build and deployment news.' },
  },
  message_content: {
    summary: 'Ask for the MESSAGE_CONTENT intent',
    value: { flags: 1 << 19 },
  },
  gateway_interactions: UPDATE_APPLICATION_EXAMPLES.gateway_interactions,
};

export const CLIENT_SECRET_RESET_EXAMPLES: BodyExamples = {
  ...reauthExamples({}, 'Reset'),
  recent_login: { summary: 'Within 5 minutes of logging in (no proof)', value: {} },
};

export const BOT_TOKEN_RESET_EXAMPLES = CLIENT_SECRET_RESET_EXAMPLES;

export const APPLICATION_DELETE_EXAMPLES: BodyExamples = {
  ...reauthExamples({}, 'Delete'),
  recent_login: { summary: 'Within 5 minutes of logging in (no proof)', value: {} },
};

export const BOT_PROFILE_EXAMPLES: BodyExamples = {
  profile: {
    summary: "Change the bot's username and bio",
    value: { username: 'engine_bot', bio: 'Posts build and deployment news.' },
  },
  avatar: { summary: 'Set the avatar (a PNG data URI)', value: { avatar: EXAMPLE.pngDataUri } },
  remove_avatar: { summary: 'Remove the avatar', value: { avatar: null } },
};

export const CONSENT_EXAMPLES: BodyExamples = {
  code: {
    summary: 'Authorization code for identify and email',
    value: {
      client_id: EXAMPLE.applicationId,
      scope: 'identify email',
      redirect_uri: EXAMPLE.redirectUri,
      response_type: 'code',
      state: 'af0ifjsldkj',
    },
  },
  pkce: {
    summary: 'With PKCE (S256)',
    value: {
      client_id: EXAMPLE.applicationId,
      scope: 'identify',
      redirect_uri: EXAMPLE.redirectUri,
      response_type: 'code',
      state: 'af0ifjsldkj',
      code_challenge: EXAMPLE.pkceChallenge,
      code_challenge_method: 'S256',
    },
  },
  openid: {
    summary: 'OpenID Connect sign-in (ID token with a nonce)',
    value: {
      client_id: EXAMPLE.applicationId,
      scope: 'openid profile email',
      redirect_uri: EXAMPLE.redirectUri,
      response_type: 'code',
      state: 'af0ifjsldkj',
      nonce: 'n-0S6_WzA2Mj',
    },
  },
  bot: {
    summary: 'Add the bot to a guild',
    value: {
      client_id: EXAMPLE.applicationId,
      scope: 'bot',
      guild_id: EXAMPLE.guildId,
      permissions: '2048',
    },
  },
};

const BODY_CREDENTIALS = { client_id: EXAMPLE.applicationId, client_secret: EXAMPLE.clientSecret };

export const TOKEN_EXAMPLES: BodyExamples = {
  authorization_code: {
    summary: 'Exchange an authorization code',
    value: {
      grant_type: 'authorization_code',
      code: EXAMPLE.oauthCode,
      redirect_uri: EXAMPLE.redirectUri,
    },
  },
  authorization_code_pkce: {
    summary: 'Exchange an authorization code with its PKCE verifier',
    value: {
      grant_type: 'authorization_code',
      code: EXAMPLE.oauthCode,
      redirect_uri: EXAMPLE.redirectUri,
      code_verifier: EXAMPLE.pkceVerifier,
    },
  },
  refresh_token: {
    summary: 'Refresh (the refresh token is rotated)',
    value: { grant_type: 'refresh_token', refresh_token: EXAMPLE.refreshToken },
  },
  body_credentials: {
    summary: 'Client credentials in the body (no Basic authorization)',
    value: {
      grant_type: 'authorization_code',
      code: EXAMPLE.oauthCode,
      redirect_uri: EXAMPLE.redirectUri,
      ...BODY_CREDENTIALS,
    },
  },
};

export const INTROSPECT_EXAMPLES: BodyExamples = {
  access_token: {
    summary: 'An access token',
    value: { token: EXAMPLE.accessToken, token_type_hint: 'access_token' },
  },
  body_credentials: {
    summary: 'Client credentials in the body (no Basic authorization)',
    value: { token: EXAMPLE.accessToken, ...BODY_CREDENTIALS },
  },
};

export const REVOKE_EXAMPLES: BodyExamples = {
  refresh_token: {
    summary: 'A refresh token (and the rest of its grant)',
    value: { token: EXAMPLE.refreshToken, token_type_hint: 'refresh_token' },
  },
  body_credentials: {
    summary: 'Client credentials in the body (no Basic authorization)',
    value: { token: EXAMPLE.accessToken, ...BODY_CREDENTIALS },
  },
};
