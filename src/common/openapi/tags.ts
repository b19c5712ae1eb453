import type { TagObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * The areas of the API, in the order Swagger UI lists them, each saying what it is for and which
 * credential it takes (the lock icons and the Authorize dialog name the same schemes).
 */
export const TAGS: readonly TagObject[] = [
  {
    name: 'Instance',
    description:
      'What this server is and offers: the discovery document (API, gateway and OAuth2 URLs, ' +
      'enabled features). No credentials.',
  },
  {
    name: 'Auth',
    description:
      'Accounts and sessions: register, log in (with a second factor, passkeys or single sign-on ' +
      'when set up), e-mail verification and password reset, IP authorization, device handoff, ' +
      'and session management. Most routes take no credentials and answer a session `token`; ' +
      'the session routes need **sessionToken**.',
  },
  {
    name: 'Users',
    description:
      'The signed-in user: profile, guilds, and second-factor enrolment (TOTP, backup codes, SMS, ' +
      'WebAuthn passkeys). **sessionToken**; some reads also take **bearer** (OAuth2, with the ' +
      'scope they name) or **botToken**. Changing security settings asks for a fresh proof ' +
      '(password or second factor) in the body.',
  },
  {
    name: 'Guilds',
    description:
      'Guilds (servers), their members and channels. **sessionToken** or **botToken**; changes ' +
      'need the guild permission each route names (the owner and `ADMINISTRATOR` have all).',
  },
  {
    name: 'Channels',
    description:
      'Messages in a channel, and the channel’s webhooks. **sessionToken** or **botToken** of a ' +
      'guild member; webhooks need `MANAGE_WEBHOOKS`.',
  },
  {
    name: 'Gateway',
    description:
      'Where the real-time gateway is: a WebSocket at `/gateway` on this server speaking Discord ' +
      'Gateway v10 (identify with a bot token or a session token; events for the guilds you are ' +
      'in). **botToken** for the session start limit.',
  },
  {
    name: 'Webhooks',
    description:
      'Incoming webhooks. Managing one by ID needs **sessionToken**/**botToken** with ' +
      '`MANAGE_WEBHOOKS`; the `/{webhook_id}/{token}` routes take no Authorization header — the ' +
      'token in the URL is the credential. Execute in four formats: Parley/Discord JSON, ' +
      '`/chatcompat` (Slack-style), `/repohost` (GitHub, Gitea, Forgejo, Gogs events) and ' +
      '`/errortracker` (Sentry); add `?wait=true` to get the message back.',
  },
  {
    name: 'OAuth2',
    description:
      'Parley as an OAuth2 authorization server: consent (a signed-in user, **sessionToken**), ' +
      'the token, introspection and revocation endpoints (client credentials: **clientBasic** ' +
      'or `client_id`/`client_secret` in the body; errors in the RFC 6749 shape), the user’s ' +
      'authorizations, userinfo (**bearer**) and server metadata.',
  },
  {
    name: 'OAuth2 applications',
    description:
      'OAuth2 applications and their bot users, managed by their owner (**sessionToken**): ' +
      'create, update, reset the client secret or bot token (shown once). A bot (**botToken**) ' +
      'can read and edit its own profile.',
  },
  {
    name: 'Application commands',
    description:
      'Discord’s application commands (slash commands, user and message context-menu commands), ' +
      'global or per guild, managed by the application: **botToken**, or its owner’s **bearer** ' +
      'token with `applications.commands.update`. A guild member lists what they may use with ' +
      '`GET /guilds/{guild_id}/application-command-index`.',
  },
  {
    name: 'Interactions',
    description:
      'Using an application: a member (**sessionToken**) sends a command, clicks a component or ' +
      'submits a modal with `POST /interactions`; the application receives it on its gateway ' +
      'session (INTERACTION_CREATE) or at its signed HTTP endpoint and answers through the ' +
      'callback within 3 seconds, then follows up for 15 minutes through its interaction webhook. ' +
      'The answer routes take no Authorization header: the interaction token in the URL is the ' +
      'credential.',
  },
  {
    name: 'Admin',
    description:
      'Instance administration: users, guilds, bans, archives, audit log, API keys, asset purge, ' +
      'bulk operations. **adminApiKey** only (`Admin adm_<key_id>_<secret>`); each route names ' +
      'the ACL it needs, and changes record `X-Audit-Log-Reason` in the audit log.',
  },
  {
    name: 'Health',
    description:
      'Liveness and readiness probes for orchestrators and load balancers. No credentials, no ' +
      'rate limit.',
  },
];
