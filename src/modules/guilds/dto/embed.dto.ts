import { ApiProperty } from '@nestjs/swagger';

export class EmbedAuthorDto {
  name: string;
  url?: string;
  icon_url?: string;
}

export class EmbedFooterDto {
  text: string;
  icon_url?: string;
}

export class EmbedMediaDto {
  url: string;
}

export class EmbedFieldDto {
  name: string;
  value: string;
  inline: boolean;
}

/** A rich embed. Over-long texts are truncated (title 256, description 4096, field value 1024). */
export class EmbedDto {
  title?: string;
  description?: string;
  url?: string;
  /** 24-bit RGB integer. */
  @ApiProperty({ required: false, example: 0x5865f2 })
  color?: number;
  /** ISO 8601 timestamp. */
  timestamp?: string;
  author?: EmbedAuthorDto;
  footer?: EmbedFooterDto;
  image?: EmbedMediaDto;
  thumbnail?: EmbedMediaDto;
  @ApiProperty({ required: false, type: [EmbedFieldDto] })
  fields?: EmbedFieldDto[];
}
