import { IsString, MaxLength } from 'class-validator';

export class UsernameSuggestionsDto {
  /** The display name to derive usernames from (any script). */
  @IsString()
  @MaxLength(100)
  global_name: string;
}
