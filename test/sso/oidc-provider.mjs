// A real OpenID Provider (oidc-provider) for the SSO e2e suite, run as a child process because
// oidc-provider is ESM-only. Usage: node oidc-provider.mjs <redirect_uri> <client_secret>
// Prints one JSON line {"issuer": "..."} when it listens on a loopback port.
//
// Interactions finish without a form: the account is the authorization request's `login_hint`
// (an e-mail of ACCOUNTS), and consent grants the requested OIDC scopes — so a test drives the
// whole authorization-code flow over HTTP like a browser that follows redirects.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const [redirectUri, clientSecret] = process.argv.slice(2);

const ACCOUNTS = {
  'alice@allowed.test': { verified: true, name: 'Alice Example' },
  'bob@allowed.test': { verified: true, name: 'Bob Example' },
  'carol@allowed.test': { verified: true, name: 'Carol Example' },
  'dave@allowed.test': { verified: true, name: 'Dave Example' },
  'unverified@allowed.test': { verified: false, name: 'Unverified' },
  'mallory@other.test': { verified: true, name: 'Mallory' },
};

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'parley',
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    async findAccount(_ctx, id) {
      const account = ACCOUNTS[id];
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: id, email_verified: account.verified, name: account.name };
        },
      };
    },
  });
  provider.proxy = false;

  const handle = provider.callback();
  server.on('request', async (req, res) => {
    if (!req.url.startsWith('/interaction/')) return handle(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      const accountId = details.params.login_hint;
      if (!ACCOUNTS[accountId]) {
        return provider.interactionFinished(req, res, {
          error: 'access_denied',
          error_description: 'unknown test account',
        });
      }
      if (details.prompt.name === 'login') {
        return provider.interactionFinished(req, res, { login: { accountId } });
      }
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId, clientId: details.params.client_id });
      grant.addOIDCScope(details.params.scope);
      const grantId = await grant.save();
      return provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    } catch (e) {
      res.statusCode = 500;
      res.end(String(e));
    }
  });
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
