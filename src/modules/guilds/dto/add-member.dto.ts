import { ArrayMaxSize, IsArray, IsOptional, Matches } from 'class-validator';

export class AddMemberDto {
  /** Role ids of this guild to give the new member (besides @everyone). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(250)
  @Matches(/^\d{1,20}$/, { each: true, message: 'each role must be a snowflake id' })
  roles?: string[];
}
