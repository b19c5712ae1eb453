/**
 * What each path parameter means, by name: one wording for the same parameter everywhere.
 * `finishOpenApiDocument` fills it in where a route gives none; a route that needs more says so
 * with `@ApiParam`. A new parameter name needs an entry here (the OpenAPI e2e check says so).
 */
export const PATH_PARAMETERS: Readonly<Record<string, string>> = {
  guild_id: 'Guild ID (snowflake, as a string).',
  channel_id: 'Channel ID (snowflake, as a string).',
  message_id: 'Message ID (snowflake, as a string) of a message in that channel.',
  user_id: 'User ID (snowflake, as a string).',
  emoji:
    'A unicode emoji, percent-encoded (`%F0%9F%91%8D` for 👍); custom emoji (`name:id`) are ' +
    'unknown (Parley has none).',
  role_id:
    'Role ID (snowflake, as a string) of a role of that guild; @everyone’s is the guild’s id.',
  webhook_id: 'Webhook ID (snowflake, as a string).',
  token:
    'The webhook token (64 characters), as returned when the webhook was created; ' +
    'with the ID it is the whole credential, so treat the URL as a secret.',
  id: 'OAuth2 application ID (snowflake, as a string); it is also the client ID and the bot user ID.',
  application_id: 'OAuth2 application ID (snowflake, as a string).',
  command_id: 'Application command ID (snowflake, as a string) of a command of that application.',
  credential_id:
    'WebAuthn credential ID (snowflake, as a string): the `id` that ' +
    '`GET /users/@me/mfa/webauthn/credentials` lists.',
  code: 'The handoff code shown on the new device, `XXXX-XXXX`.',
  keyId:
    'Admin API key ID (snowflake, as a string), the `<key_id>` part of `adm_<key_id>_<secret>`.',
  subjectType: 'What the archive holds: `user` or `guild`.',
  subjectId: 'The user or guild ID (snowflake, as a string) the archive was made of.',
  archiveId: 'Archive ID (snowflake, as a string), as returned when the archive was requested.',
};
