import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** Discord's "Add Guild Member": a bot adds a user who granted its application `guilds.join`. */
export class AddMemberDto {
  /**
   * An OAuth2 access token of the user being added, granted to the calling bot's application
   * with the `guilds.join` scope.
   */
  @IsString()
  @MaxLength(256)
  access_token: string;

  /**
   * Role ids of this guild to give the new member (besides @everyone). Needs MANAGE_ROLES, and
   * the roles' permissions must all be held by the bot.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(250)
  @Matches(/^\d{1,20}$/, { each: true, message: 'each role must be a snowflake id' })
  roles?: string[];
}
