import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { IsSnowflake } from '../../../common/snowflake/is-snowflake.decorator';

/** Discord's bulk delete: 2–100 message ids of the channel, none older than 14 days. */
export class BulkDeleteMessagesDto {
  /** The messages to delete (ids the channel does not hold are skipped). */
  @ApiProperty({
    type: [String],
    minItems: 2,
    maxItems: 100,
    example: ['1300000000000000001', '1300000000000000002'],
  })
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(100)
  @IsSnowflake({ each: true })
  messages: Array<string | number>;
}
