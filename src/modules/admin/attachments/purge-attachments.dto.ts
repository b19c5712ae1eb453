import { ApiProperty } from '@nestjs/swagger';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';

export class PurgeUserAttachmentsRequest {
  /** The user whose uploaded files are deleted, in every guild. */
  @ApiProperty({ type: String, example: '1300000000000000000' })
  @IsSnowflake()
  user_id: string | number;
}

export class PurgeGuildAttachmentsRequest {
  /** The guild whose files are deleted, whoever uploaded them. */
  @ApiProperty({ type: String, example: '1300000000000000000' })
  @IsSnowflake()
  guild_id: string | number;
}
