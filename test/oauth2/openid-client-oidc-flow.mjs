// "Sign in with Parley" driven by the real `openid-client` v6 as a relying party would (ESM-only,
// so the Jest suite runs this file in a child process). Usage:
//   node openid-client-oidc-flow.mjs <issuer> <client_id> <client_secret> <redirect_uri> <session_token> <ok|wrong-nonce|bad-signature> [scope]
// Prints one JSON object on stdout; on failure prints {"error": ..., "code": ...} and exits 1.
import * as client from 'openid-client';

const [
  issuer,
  clientId,
  clientSecret,
  redirectUri,
  sessionToken,
  mode,
  scope = 'openid email profile',
] = process.argv.slice(2);

async function main() {
  // Default algorithm 'oidc': GET <issuer>/.well-known/openid-configuration (issuer must match).
  // enableNonRepudiationChecks: the ID token's signature is verified against jwks_uri (by default
  // openid-client trusts the TLS channel of the token endpoint and skips it).
  const config = await client.discovery(
    new URL(issuer),
    clientId,
    clientSecret,
    client.ClientSecretBasic(clientSecret),
    { execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks] },
  );
  const meta = config.serverMetadata();
  if (mode === 'bad-signature') {
    // A man in the middle alters the ID token's signature: the JWKS check must catch it.
    config[client.customFetch] = async (url, options) => {
      const res = await fetch(url, options);
      if (!String(url).endsWith('/oauth2/token')) return res;
      const body = await res.json();
      const [h, p, sig] = body.id_token.split('.');
      const bytes = Buffer.from(sig, 'base64url');
      bytes[0] ^= 1;
      body.id_token = [h, p, bytes.toString('base64url')].join('.');
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    };
  }

  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const codeChallenge = await client.calculatePKCECodeChallenge(pkceCodeVerifier);
  const expectedState = client.randomState();
  const nonce = client.randomNonce();

  // The user clicks "Authorize" in the web app: the consent call, made with the session token.
  const consent = await fetch(new URL('/v1/oauth2/authorize/consent', issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: sessionToken },
    body: JSON.stringify({
      client_id: clientId,
      scope,
      redirect_uri: redirectUri,
      response_type: 'code',
      state: expectedState,
      // wrong-nonce: the authorization request carried another nonce than the client expects.
      nonce: mode === 'wrong-nonce' ? client.randomNonce() : nonce,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    }),
  });
  if (consent.status !== 200) throw new Error(`consent: ${consent.status} ${await consent.text()}`);
  const { redirect_to } = await consent.json();

  const tokens = await client.authorizationCodeGrant(config, new URL(redirect_to), {
    pkceCodeVerifier,
    expectedState,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  const header = JSON.parse(Buffer.from(tokens.id_token.split('.')[0], 'base64url').toString());

  // fetchUserInfo checks that userinfo's sub equals the ID token's.
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);

  return {
    issuer: meta.issuer,
    jwks_uri: meta.jwks_uri,
    scope: tokens.scope,
    id_token_header: header,
    claims,
    userinfo,
    refreshed_claims: refreshed.claims() ?? null,
  };
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  },
  (err) => {
    process.stdout.write(
      `${JSON.stringify({
        error: String(err?.message ?? err),
        code: err?.code,
        cause: err?.cause ? String(err.cause?.message ?? err.cause) : undefined,
        // oauth4webapi names the claim that failed a comparison.
        claim: err?.cause?.cause?.claim,
      })}\n`,
    );
    process.exitCode = 1;
  },
);
