import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { AttachmentRefDto } from './attachment-ref.dto';
import { ActionRowDto } from './component.dto';
import { EmbedDto } from './embed.dto';

/**
 * What an author may change; a field left out stays. The result needs content, an embed or
 * components.
 */
export class EditMessageDto {
  /** New text, at most 2000 characters. */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  content?: string;

  /** New embeds (replace the old ones), up to 10. */
  @ApiProperty({ required: false, type: [EmbedDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsObject({ each: true })
  embeds?: EmbedDto[];

  /**
   * The attachments the message keeps (by id; one left out is deleted), the files of this
   * multipart request (`id` = the `n` of `files[n]`) and uploaded files (`uploaded_filename`);
   * left out: every attachment stays and this request's files are added. At most 10.
   */
  @ApiProperty({ required: false, type: [AttachmentRefDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => AttachmentRefDto)
  attachments?: AttachmentRefDto[];

  /** Bots only: new components (replace the old ones; `[]` removes them), up to 5 action rows. */
  @ApiProperty({ required: false, type: [ActionRowDto] })
  @IsOptional()
  @IsArray()
  components?: ActionRowDto[];
}
