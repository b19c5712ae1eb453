import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, ValidateNested } from 'class-validator';
import { AllowedMentionsDto } from '../../guilds/dto/create-message.dto';
import { EditMessageDto } from '../../guilds/dto/edit-message.dto';

/**
 * Discord's body of `PATCH /webhooks/{webhook_id}/{token}/messages/{message_id}`: a message
 * edit's fields (content, embeds, attachments, components) plus `allowed_mentions` and `flags`.
 * The same route edits an interaction's messages (an interaction token), which read it as an
 * interaction's message edit.
 */
export class EditWebhookMessageDto extends EditMessageDto {
  /**
   * Which mentions in the new content take effect. A webhook's messages mention nobody (as when
   * executed); an interaction's follow the list.
   */
  @ApiProperty({ required: false, type: () => AllowedMentionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => AllowedMentionsDto)
  allowed_mentions?: AllowedMentionsDto;

  /** 4 SUPPRESS_EMBEDS, set or cleared (other flags are ignored on an edit). */
  @IsOptional()
  @IsInt()
  flags?: number;
}
