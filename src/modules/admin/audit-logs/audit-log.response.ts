import { ApiProperty } from '@nestjs/swagger';
import type { ActorType } from '../../audit/actor';

const ACTOR_TYPES: ActorType[] = [
  'user',
  'bot',
  'oauth2_client',
  'admin_key',
  'system',
  'anonymous',
];

/** One audited event. */
export class AuditLogEntryResponse {
  @ApiProperty({ example: '1300000000000000000' })
  id: string;

  /** Who acted: a user, a bot, an OAuth2 client acting for a user, an admin key, the system or an anonymous caller. */
  @ApiProperty({ enum: ACTOR_TYPES, example: 'admin_key' })
  actor_type: ActorType;

  /** The user, bot user, OAuth2 application or admin key id; null for `system` and `anonymous`. */
  @ApiProperty({ type: String, nullable: true, example: '1300000000000000001' })
  actor_id: string | null;

  /** The user behind the actor (an admin key's owner, an OAuth2 token's user); null when none. */
  @ApiProperty({ type: String, nullable: true, example: '1300000000000000002' })
  actor_user_id: string | null;

  /** Dotted verb, e.g. `admin_api_key.create`, `auth.login.failed`, `webhook.delete`. */
  @ApiProperty({ example: 'admin_api_key.create' })
  action: string;

  /** The kind of thing acted on (`user`, `session`, `webhook`, `oauth2_application`, `admin_api_key`, …). */
  @ApiProperty({ type: String, nullable: true, example: 'admin_api_key' })
  target_type: string | null;

  /** Its id (or e-mail address, IP range, … for bans). */
  @ApiProperty({ type: String, nullable: true, example: '1300000000000000003' })
  target_id: string | null;

  /** The request's `X-Audit-Log-Reason`, when one was given. */
  @ApiProperty({ type: String, nullable: true, example: 'hand-out for the audit team' })
  reason: string | null;

  /**
   * Details of the action, a flat JSON object whose keys depend on `action` (e.g. `name` and
   * `acls` of a created key, `count` of ended sessions, masked `old_email`/`new_email` of an
   * e-mail change). Never a secret.
   */
  @ApiProperty({
    type: 'object',
    // OpenAPI 3.0 ignores `nullable` beside no `type`: null is allowed by the string branch.
    additionalProperties: {
      oneOf: [
        { type: 'string', nullable: true },
        { type: 'number' },
        { type: 'boolean' },
        { type: 'array', items: {} },
      ],
    },
    example: { name: 'auditors', acls: ['audit_log:view'], expires_at: null },
  })
  metadata: Record<string, unknown>;

  /** The client address of the request, when known. */
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' })
  ip: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** AuditLogsListResponseSchema: one page of entries. */
export class AuditLogsListResponseSchema {
  @ApiProperty({ type: [AuditLogEntryResponse] })
  entries: AuditLogEntryResponse[];

  /** How many entries match the filters (and the query), over all pages. */
  @ApiProperty({ example: 123 })
  total: number;

  /** Pass as `cursor` to read the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true, example: 'eyJpZCI6IjEzMDAwMDAwMDAwMDAwMDAwMDAifQ' })
  next_cursor: string | null;
}
