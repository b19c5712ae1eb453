import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { EmbedDto } from './embed.dto';

/** A message needs content or at least one embed. */
export class CreateMessageDto {
  /** Message text, at most 2000 characters. */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  content?: string;

  /** Up to 10 embeds. */
  @ApiProperty({ required: false, type: [EmbedDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsObject({ each: true })
  embeds?: EmbedDto[];
}
