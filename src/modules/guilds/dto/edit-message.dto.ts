import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
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

  /** Bots only: new components (replace the old ones; `[]` removes them), up to 5 action rows. */
  @ApiProperty({ required: false, type: [ActionRowDto] })
  @IsOptional()
  @IsArray()
  components?: ActionRowDto[];
}
