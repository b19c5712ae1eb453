import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';

/** PurgeGuildAssetsRequest. */
export class PurgeGuildAssetsRequest {
  /** The guilds whose stored images are deleted (1–100 ids; duplicates are purged once). */
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 100,
    example: ['1300000000000000000'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsSnowflake({ each: true })
  guild_ids: Array<string | number>;
}
