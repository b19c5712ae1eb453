// Swagger schemas of the execute bodies. Documentation only: the execute routes take the body as
// `unknown` and read it tolerantly (foreign senders add fields, nulls and 64-bit ids freely).
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EmbedDto } from '../../guilds/dto/embed.dto';

/** Discord-style execute body. Unknown fields are ignored. */
export class ExecuteWebhookRequest {
  /** Message text, at most 2000 characters. */
  content?: string;
  /** Overrides the webhook's name for this message (≤ 80). */
  username?: string;
  /** Overrides the webhook's avatar for this message (stored as given, never fetched). */
  avatar_url?: string;
  /** Up to 10 embeds. */
  @ApiPropertyOptional({ type: [EmbedDto] })
  embeds?: EmbedDto[];
}

export class RepoHostMember {
  avatar_url: string;
  html_url: string;
  id: number;
  login: string;
}

export class RepoHostRepository {
  full_name: string;
  html_url: string;
  id: number;
  name: string;
}

export class RepoHostCommit {
  @ApiProperty({ type: 'object', additionalProperties: true })
  author: Record<string, unknown>;
  id: string;
  message: string;
  url: string;
}

export class RepoHostIssue {
  body?: string | null;
  html_url: string;
  id: number;
  number: number;
  title: string;
  user: RepoHostMember;
}

export class RepoHostRelease {
  body?: string | null;
  html_url: string;
  id: number;
  tag_name: string;
}

export class RepoHostReview {
  body?: string | null;
  html_url: string;
  state: string;
  user: RepoHostMember;
}

export class RepoHostAnswer {
  body: string;
  commit_id?: string | null;
  html_url: string;
  id: number;
  user: RepoHostMember;
}

export class RepoHostCheckSuite {
  @ApiProperty({ type: 'object', additionalProperties: true })
  app: Record<string, unknown>;
  conclusion?: string | null;
  head_branch?: string | null;
  head_sha: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, nullable: true })
  pull_requests?: unknown[] | null;
}

export class RepoHostCheckRun {
  check_suite: RepoHostCheckSuite;
  conclusion?: string | null;
  details_url?: string | null;
  html_url: string;
  name: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true })
  output?: Record<string, unknown> | null;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, nullable: true })
  pull_requests?: unknown[] | null;
}

export class RepoHostDiscussion {
  answer_html_url?: string | null;
  body?: string | null;
  html_url: string;
  number: number;
  title: string;
  user: RepoHostMember;
}

/**
 * A code-hosting (GitHub-format) event payload; the event name is the `X-GitHub-Event` header.
 * Only `sender` is required; unknown fields are accepted.
 */
export class RepoHostWebhook {
  sender: RepoHostMember;
  action?: string | null;
  compare?: string | null;
  ref?: string | null;
  ref_type?: string | null;
  /** `push`: the commit before it (all zeros for a new ref). */
  before?: string | null;
  /** `push`: the commit after it (all zeros for a deleted ref). */
  after?: string | null;
  /** `push`: it created the ref. */
  created?: boolean | null;
  /** `push`: it deleted the ref. */
  deleted?: boolean | null;
  forced?: boolean | null;
  answer?: RepoHostAnswer | null;
  comment?: RepoHostAnswer | null;
  check_run?: RepoHostCheckRun | null;
  check_suite?: RepoHostCheckSuite | null;
  @ApiPropertyOptional({ type: [RepoHostCommit], nullable: true })
  commits?: RepoHostCommit[] | null;
  head_commit?: RepoHostCommit | null;
  discussion?: RepoHostDiscussion | null;
  forkee?: RepoHostRepository | null;
  repository?: RepoHostRepository | null;
  issue?: RepoHostIssue | null;
  pull_request?: RepoHostIssue | null;
  member?: RepoHostMember | null;
  release?: RepoHostRelease | null;
  review?: RepoHostReview | null;
}

export class ErrorTrackerActor {
  id: string;
  name: string;
  type: string;
}

export class ErrorTrackerData {
  @ApiProperty({ type: 'object', additionalProperties: true })
  issue: Record<string, unknown>;
}

export class ErrorTrackerInstallation {
  uuid: string;
}

/**
 * An error-tracker (Sentry-format) payload: the integration-platform format (resource in the
 * `Sentry-Hook-Resource` header) or the legacy flat format. All fields optional.
 */
export class ErrorTrackerWebhook {
  action?: string | null;
  actor?: ErrorTrackerActor | null;
  data?: ErrorTrackerData | null;
  installation?: ErrorTrackerInstallation | null;
}

export class ChatCompatAttachment {
  author_icon?: string;
  author_link?: string;
  author_name?: string;
  /** Hex code (`#36a64f`) or preset (`good`, `warning`, `danger`). */
  color?: string;
  fallback?: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  fields?: unknown[];
  footer?: string;
  image_url?: string;
  pretext?: string;
  text?: string;
  thumb_url?: string;
  title?: string;
  title_link?: string;
  /** Unix timestamp (seconds). */
  ts?: number;
}

/** A chat-tool (Slack-format) incoming-webhook body. All fields optional. */
export class ChatCompatWebhookRequest {
  /** Main message text (mrkdwn). */
  text?: string;
  /** Overrides the webhook's name. */
  username?: string;
  /** Overrides the webhook's icon. */
  icon_url?: string;
  @ApiPropertyOptional({ type: [ChatCompatAttachment] })
  attachments?: ChatCompatAttachment[];
}
