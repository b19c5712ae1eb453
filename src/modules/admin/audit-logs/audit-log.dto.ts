import { ApiProperty } from '@nestjs/swagger';
import {
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';

/** Most actions one filter may name. */
export const MAX_ACTION_FILTERS = 50;
const MAX_ACTION_LENGTH = 64;
/** Deepest page an `offset` may reach (ranked search pages by offset). */
export const MAX_AUDIT_OFFSET = 100_000;

const isAction = (v: unknown): boolean =>
  typeof v === 'string' && v.length >= 1 && v.length <= MAX_ACTION_LENGTH;

/**
 * One action name or a list of 1–50 of them (each 1–64 characters). A custom constraint because
 * class-validator has no "string or array of strings"; its field error is `BASE_TYPE_STRING`.
 */
function IsActionFilter(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isActionFilter',
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value)
            ? value.length >= 1 && value.length <= MAX_ACTION_FILTERS && value.every(isAction)
            : isAction(value),
        defaultMessage: () =>
          `$property must be a string or an array of 1–${MAX_ACTION_FILTERS} strings (each 1–${MAX_ACTION_LENGTH} characters)`,
      },
    },
    { ...options, context: { code: FieldErrorCode.BaseTypeString } },
  );
}

const DATE_CONTEXT = { context: { code: FieldErrorCode.BaseTypeFormat } };

/** ListAuditLogsRequest: filters (all combined with AND) and the page to read, newest first. */
export class ListAuditLogsRequest {
  /** Entries created at or after this time (ISO 8601, e.g. `2026-11-01` or `2026-11-01T12:00:00Z`). */
  @ApiProperty({ required: false, format: 'date-time', example: '2026-11-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, { ...DATE_CONTEXT, message: '$property must be an ISO 8601 date' })
  from?: string;

  /** Entries created before this time (exclusive; ISO 8601). */
  @ApiProperty({ required: false, format: 'date-time', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, { ...DATE_CONTEXT, message: '$property must be an ISO 8601 date' })
  to?: string;

  /** One action (`auth.login.failed`) or several (`["webhook.create", "webhook.delete"]`). */
  @ApiProperty({
    required: false,
    oneOf: [
      { type: 'string', minLength: 1, maxLength: MAX_ACTION_LENGTH, example: 'auth.login' },
      {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: MAX_ACTION_LENGTH },
        minItems: 1,
        maxItems: MAX_ACTION_FILTERS,
        example: ['webhook.create', 'webhook.delete'],
      },
    ],
  })
  @IsOptional()
  @IsActionFilter()
  action?: string | string[];

  /**
   * The acting user, bot user, OAuth2 application or admin key (an entry's `actor_id`). An admin
   * key's owner is `actor_user_id` and is not matched by this filter.
   */
  @ApiProperty({ required: false, type: String, example: '1300000000000000000' })
  @IsOptional()
  @IsSnowflake()
  actor_id?: string | number;

  /** The kind of thing acted on: `user`, `session`, `webhook`, `oauth2_application`, `admin_api_key`, … */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(32)
  target_type?: string;

  /** The id (or e-mail, IP range, …) of the thing acted on, as the entry's `target_id`. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  target_id?: string;

  /** Entries per page (1–200, default 50). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  /** The `next_cursor` of the previous page (opaque). Not together with `offset`. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  /** Entries to skip (0–100000), instead of a `cursor`. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_AUDIT_OFFSET)
  offset?: number;
}

/** SearchAuditLogsRequest: a full-text query plus the filters of the list. */
export class SearchAuditLogsRequest extends ListAuditLogsRequest {
  /**
   * Web-search syntax (`websearch_to_tsquery`, English): words, `"quoted phrases"`, `or`, and
   * `-excluded` words, matched against the action, reason, target and metadata values. Results
   * are ranked by relevance, newest first among equals.
   */
  @ApiProperty({ example: 'spam -test' })
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  query: string;
}
