import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';
import { ARCHIVE_SUBJECT_TYPES, type ArchiveSubjectType } from './archive.entity';

export class TriggerUserArchiveRequest {
  /** The user whose data is exported: profile, sessions (metadata), memberships, messages, applications, OAuth2 authorizations. */
  @ApiProperty({ type: String, example: '1300000000000000000' })
  @IsSnowflake()
  user_id: string | number;
}

export class TriggerGuildArchiveRequest {
  /** The guild whose data is exported: guild, channels, roles, members, messages, webhooks. */
  @ApiProperty({ type: String, example: '1300000000000000000' })
  @IsSnowflake()
  guild_id: string | number;
}

export class ListArchivesRequest {
  /** Only archives of this subject type. */
  @ApiProperty({ required: false, enum: ARCHIVE_SUBJECT_TYPES })
  @IsOptional()
  @IsIn(ARCHIVE_SUBJECT_TYPES)
  subject_type?: ArchiveSubjectType;

  /** Only archives of this user or guild. */
  @ApiProperty({ required: false, type: String, example: '1300000000000000000' })
  @IsOptional()
  @IsSnowflake()
  subject_id?: string | number;

  /** Only archives requested by this admin key id, or by this user id (a key's owner). */
  @ApiProperty({ required: false, type: String, example: '1300000000000000000' })
  @IsOptional()
  @IsSnowflake()
  requested_by?: string | number;

  /** Also list archives whose `expires_at` has passed (default false). */
  @IsOptional()
  @IsBoolean()
  include_expired?: boolean;

  /** Archives per page (1–200, default 50), newest first. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  /** The `next_cursor` of the previous page. */
  @ApiProperty({ required: false, type: String, example: '1300000000000000000' })
  @IsOptional()
  @IsSnowflake()
  cursor?: string | number;
}
