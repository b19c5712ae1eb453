import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, MaxLength } from 'class-validator';
import { ATTACHMENT_LINK_EXAMPLE } from './attachments.examples';

/** At most this many links per call (Discord's limit). */
export const MAX_REFRESH_URLS = 50;

/** Discord's `POST /attachments/refresh-urls` body. */
export class RefreshUrlsDto {
  /**
   * Attachment links to sign again, fresh or expired (as messages showed them): 1–50, each at most
   * 2,048 characters.
   */
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MAX_REFRESH_URLS,
    example: [ATTACHMENT_LINK_EXAMPLE],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_REFRESH_URLS)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  attachment_urls: string[];
}
