// Drives Parley's OAuth2 provider with the real `openid-client` v6 (ESM-only, so the Jest suite
// runs this file in a child process). Usage:
//   node openid-client-flow.mjs <issuer> <client_id> <client_secret> <redirect_uri> <session_token> <post|basic>
// Prints one JSON object on stdout; on failure prints {"error": ...} and exits 1.
import * as client from 'openid-client';

const [issuer, clientId, clientSecret, redirectUri, sessionToken, method] = process.argv.slice(2);

async function main() {
  const auth =
    method === 'basic'
      ? client.ClientSecretBasic(clientSecret)
      : client.ClientSecretPost(clientSecret);
  // algorithm 'oauth2' → RFC 8414 /.well-known/oauth-authorization-server (not OIDC discovery);
  // allowInsecureRequests because the test server is plain http on loopback.
  const config = await client.discovery(new URL(issuer), clientId, clientSecret, auth, {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
  const meta = config.serverMetadata();

  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const codeChallenge = await client.calculatePKCECodeChallenge(pkceCodeVerifier);
  const expectedState = client.randomState();

  // The user clicks "Authorize" in the web app: the consent call, made with the session token.
  const consent = await fetch(new URL('/v1/oauth2/authorize/consent', issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: sessionToken },
    body: JSON.stringify({
      client_id: clientId,
      scope: 'identify email',
      redirect_uri: redirectUri,
      response_type: 'code',
      state: expectedState,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    }),
  });
  if (consent.status !== 200) throw new Error(`consent: ${consent.status} ${await consent.text()}`);
  const { redirect_to } = await consent.json();

  const tokens = await client.authorizationCodeGrant(config, new URL(redirect_to), {
    pkceCodeVerifier,
    expectedState,
  });
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);

  // fetchUserInfo is OpenID Connect only; userinfo here is a plain protected resource.
  const userinfoRes = await client.fetchProtectedResource(
    config,
    refreshed.access_token,
    new URL(meta.userinfo_endpoint),
    'GET',
  );
  const userinfo = await userinfoRes.json();

  const introspection = await client.tokenIntrospection(config, refreshed.access_token);
  await client.tokenRevocation(config, refreshed.refresh_token);
  const afterRevocation = await client.tokenIntrospection(config, refreshed.access_token);

  return {
    issuer: meta.issuer,
    token_endpoint: meta.token_endpoint,
    token: { token_type: tokens.token_type, scope: tokens.scope, expires_in: tokens.expires_in },
    refresh_rotated: refreshed.refresh_token !== tokens.refresh_token,
    access_rotated: refreshed.access_token !== tokens.access_token,
    userinfo_status: userinfoRes.status,
    userinfo,
    introspection,
    after_revocation: afterRevocation,
  };
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  },
  (err) => {
    process.stdout.write(
      `${JSON.stringify({ error: String(err?.message ?? err), code: err?.code, cause: err?.cause ? String(err.cause?.message ?? err.cause) : undefined })}\n`,
    );
    process.exitCode = 1;
  },
);
