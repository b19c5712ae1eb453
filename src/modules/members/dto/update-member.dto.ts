import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** Discord's Modify Current Member: one's own nickname. */
export class UpdateCurrentMemberDto {
  /** 1-32 characters; null or "" removes it. Needs CHANGE_NICKNAME (or MANAGE_NICKNAMES). */
  @IsOptional()
  @IsString()
  @MaxLength(32)
  nick?: string | null;
}

/** Discord's Modify Guild Member, for what Parley has: the nickname and the roles. */
export class UpdateMemberDto extends UpdateCurrentMemberDto {
  /**
   * The member's roles (every one, besides @everyone). Needs MANAGE_ROLES; the roles added or
   * removed must be below the caller's highest role and not managed, and those added may carry
   * only permissions the caller holds. Null counts as absent.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(250)
  @Matches(/^\d{1,20}$/, { each: true, message: 'each role must be a snowflake id' })
  roles?: string[] | null;
}
