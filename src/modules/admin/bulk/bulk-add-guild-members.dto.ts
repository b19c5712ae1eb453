import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional } from 'class-validator';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';

/** BulkAddGuildMembersRequest. */
export class BulkAddGuildMembersRequest {
  /** The guild to add the users to. */
  @ApiProperty({ type: String, example: '1300000000000000000' })
  @IsSnowflake()
  guild_id: string | number;

  /** The users to add (1–1000 ids; duplicates count once). */
  @ApiProperty({ type: [String], minItems: 1, maxItems: 1000, example: ['1300000000000000001'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsSnowflake({ each: true })
  user_ids: Array<string | number>;

  /**
   * Roles of this guild that every listed user ends up holding: given to new members, and added
   * to the roles of users who already were members. The @everyone role (the guild's id) is
   * implicit and ignored.
   */
  @ApiProperty({ type: [String], required: false, maxItems: 250, example: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(250)
  @IsSnowflake({ each: true })
  role_ids?: Array<string | number>;
}
