/** ApplicationFlags (Discord's bits) that Parley knows. */
export const ApplicationFlags = {
  /**
   * The bot may ask for the GUILD_PRESENCES gateway intent (connects with every intent; Parley
   * tracks no presences yet: `presences` are empty and op 3 is accepted without effect).
   */
  GATEWAY_PRESENCE_LIMITED: 1 << 13,
  /** The bot may ask for the GUILD_MEMBERS gateway intent. */
  GATEWAY_GUILD_MEMBERS_LIMITED: 1 << 15,
  /** The bot may ask for the MESSAGE_CONTENT gateway intent. */
  GATEWAY_MESSAGE_CONTENT_LIMITED: 1 << 19,
} as const;

/** What an application's owner may set with PATCH /oauth2/applications/{id} `flags`. */
export const OWNER_SETTABLE_APPLICATION_FLAGS =
  ApplicationFlags.GATEWAY_PRESENCE_LIMITED |
  ApplicationFlags.GATEWAY_GUILD_MEMBERS_LIMITED |
  ApplicationFlags.GATEWAY_MESSAGE_CONTENT_LIMITED;
