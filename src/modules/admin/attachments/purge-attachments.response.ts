import { ApiProperty } from '@nestjs/swagger';

/** PurgeAttachmentsResponseSchema: what the purge took. */
export class PurgeAttachmentsResponseSchema {
  /**
   * Files sent to deletion: taken off their messages, and uploads not attached yet. Their blobs
   * are deleted by the attachment sweep job right after; a second purge counts none of them.
   */
  @ApiProperty({ type: 'integer', example: 12 })
  attachments: number;

  /** Bytes those files take in storage. */
  @ApiProperty({ type: 'integer', example: 5242880 })
  bytes: number;

  /** Messages that lost files (each announced with MESSAGE_UPDATE). */
  @ApiProperty({ type: 'integer', example: 9 })
  messages: number;
}
