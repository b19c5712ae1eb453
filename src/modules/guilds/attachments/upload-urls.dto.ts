import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';

/** Most files one request asks upload URLs for (a message takes at most 10 attachments). */
export const MAX_UPLOADS_PER_REQUEST = 10;

/** The client's name for an entry: a string of 1-64 characters or a non-negative integer. */
function IsUploadEntryId(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isUploadEntryId',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length >= 1 && value.length <= 64) ||
          (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0),
        defaultMessage: () =>
          '$property must be a string of 1 to 64 characters or a non-negative integer',
      },
    },
    { context: { code: FieldErrorCode.BaseTypeInvalid } },
  );
}

/** One file the client is about to upload (Discord's upload attachment). */
export class UploadFileDto {
  /**
   * The client's name for this entry, echoed as `attachments[].id` of the answer (Discord's
   * clients send the index in their list): a string or an integer.
   */
  @ApiProperty({
    oneOf: [
      { type: 'string', minLength: 1, maxLength: 64 },
      { type: 'integer', minimum: 0 },
    ],
    example: '0',
  })
  @IsUploadEntryId()
  id: string | number;

  /** The file's name (path parts and control characters are dropped). */
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  filename: string;

  /**
   * Its exact size in bytes: the upload must send that many, and at most
   * ATTACHMENT_UPLOAD_MAX_BYTES (413 otherwise).
   */
  @IsInt()
  @Min(0)
  file_size: number;

  /** Discord's flag for a clip of a stream: accepted, without effect. */
  @IsOptional()
  @IsBoolean()
  is_clip?: boolean;
}

/** Discord's `POST /channels/{channel_id}/attachments` body. */
export class CreateUploadUrlsDto {
  /** The files to upload, 1 to 10. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_UPLOADS_PER_REQUEST)
  @ValidateNested({ each: true })
  @Type(() => UploadFileDto)
  files: UploadFileDto[];
}
