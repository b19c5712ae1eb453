// The single colour table for every inbound-webhook transformer, so the same kind of event
// looks the same whichever service sent it. Values are 0xRRGGBB integers as stored on embeds.
export const COLORS = {
  default: 0x5865f2,

  // Repository hosts (GitHub-style events).
  push: 0x7289da,
  forcePush: 0xd73a49,
  tag: 0xf1c40f,
  branchCreate: 0x2ea043,
  branchDelete: 0x6e7781,
  issueOpened: 0x1f883d,
  issueClosed: 0x8250df,
  issueClosedNotPlanned: 0x6e7781,
  issueReopened: 0x2da44e,
  issueEdited: 0x0969da,
  comment: 0x57606a,
  prOpened: 0x238636,
  prDraft: 0x8b949e,
  prClosed: 0xcf222e,
  prMerged: 0x8957e5,
  prReopened: 0x2da44e,
  reviewApproved: 0x1a7f37,
  reviewChangesRequested: 0xd1242f,
  reviewCommented: 0x0969da,
  release: 0xbf8700,
  star: 0xe3b341,
  fork: 0x6f42c1,
  member: 0x1b7c83,
  repository: 0x24292f,
  repositoryDeleted: 0xa40e26,
  checkSuccess: 0x2ea043,
  checkFailure: 0xcf222e,
  checkNeutral: 0x8c959f,
  deploymentInProgress: 0x0969da,
  discussion: 0x0e8a16,
  discussionAnswered: 0x1f883d,

  // Error trackers (Sentry-style levels and alert states).
  fatal: 0x7a0c0c,
  error: 0xe03e2f,
  warning: 0xf5b000,
  info: 0x2f80ed,
  debug: 0x9aa0a6,
  resolved: 0x2ea043,

  // Slack attachment presets, with Slack's own hex values so foreign payloads keep their look.
  good: 0x2eb886,
  slackWarning: 0xdaa038,
  danger: 0xa30200,
} as const;

export type ColorName = keyof typeof COLORS;

// Slack's named attachment colours; `warning` maps to Slack's amber, not the error-tracker one.
export const SLACK_PRESET_COLORS: Readonly<Record<string, number>> = {
  good: COLORS.good,
  warning: COLORS.slackWarning,
  danger: COLORS.danger,
};
