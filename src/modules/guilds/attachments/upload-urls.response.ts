import { ApiProperty } from '@nestjs/swagger';

/** Where to send one file's bytes, and the name a message refers to it by. */
export class UploadUrlResponse {
  /** The entry's `id` as the client sent it. */
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }], example: '0' })
  id: string | number;

  /**
   * Where to `PUT` the file's bytes (exactly `file_size` of them; no Authorization header): a
   * presigned URL of the S3 bucket, or Parley's signed upload route. It expires with the upload
   * (ATTACHMENT_UPLOAD_TTL).
   */
  upload_url: string;

  /**
   * The upload's name, `<random UUID>/<filename>`: send it as `attachments[].uploaded_filename`
   * when creating the message, or cancel the upload with `DELETE /attachments/{upload_filename}`.
   */
  upload_filename: string;
}

/** Discord's answer to `POST /channels/{channel_id}/attachments`: one entry per file asked for. */
export class UploadUrlsResponse {
  attachments: UploadUrlResponse[];
}
