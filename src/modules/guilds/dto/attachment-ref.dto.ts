import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';

/** A snowflake id or a small index, as a string or a number (Discord takes both). */
function IsAttachmentId(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAttachmentId',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && /^\d{1,20}$/.test(value)) ||
          (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0),
        defaultMessage: () => '$property must be a file index or an attachment id',
      },
    },
    { context: { code: FieldErrorCode.BaseTypeInvalid } },
  );
}

/**
 * Discord's partial attachment in a message body: names a file of this request (`id` = the `n`
 * of its `files[n]` part), a file uploaded through an upload URL (`uploaded_filename`), or — in
 * an edit — an attachment the message keeps (`id` = its id); with the filename and description
 * to show.
 */
export class AttachmentRefDto {
  /** `n` of a `files[n]` part, the id given to an upload URL, or a kept attachment's id. */
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }], example: 0 })
  @IsAttachmentId()
  id: string | number;

  /** The name to show (else the uploaded file's own). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  filename?: string;

  /** Alt text, at most 1024 characters. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  description?: string;

  /** The `upload_filename` an upload URL was given with (POST /channels/{id}/attachments). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(1100)
  uploaded_filename?: string;
}
