import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsNonce } from '../../guilds/dto/create-message.dto';

const SNOWFLAKE = /^\d{1,20}$/;

/** Interaction types a user invokes (Discord's): 2 command, 3 component, 4 autocomplete, 5 modal. */
export const INVOKED_TYPES = [2, 3, 4, 5] as const;

/**
 * Discord's user-side interaction request (`POST /interactions`): a command sent, a component
 * clicked, an option typed (autocomplete) or a modal submitted, in a guild channel.
 */
export class InvokeInteractionDto {
  /** 2 APPLICATION_COMMAND, 3 MESSAGE_COMPONENT, 4 APPLICATION_COMMAND_AUTOCOMPLETE, 5 MODAL_SUBMIT. */
  @ApiProperty({ enum: INVOKED_TYPES, example: 2 })
  @IsIn(INVOKED_TYPES)
  type: number;

  /** The application (its bot must be in the guild). */
  @ApiProperty({ example: '1234567890123456789' })
  @Matches(SNOWFLAKE, { message: 'application_id must be a snowflake id' })
  application_id: string;

  @ApiProperty({ example: '1234567890123456789' })
  @Matches(SNOWFLAKE, { message: 'guild_id must be a snowflake id' })
  guild_id: string;

  @ApiProperty({ example: '1234567890123456789' })
  @Matches(SNOWFLAKE, { message: 'channel_id must be a snowflake id' })
  channel_id: string;

  /** The invoking client's gateway session (informational). */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  session_id?: string;

  /** Echoed in INTERACTION_SUCCESS / INTERACTION_FAILURE. */
  @ApiProperty({ required: false, oneOf: [{ type: 'string' }, { type: 'integer' }] })
  @IsOptional()
  @IsNonce()
  nonce?: string | number;

  /** For a component (type 3): the message it is on. */
  @ApiProperty({ required: false, example: '1234567890123456789' })
  @IsOptional()
  @Matches(SNOWFLAKE, { message: 'message_id must be a snowflake id' })
  message_id?: string;

  /** For a component: that message's flags (64 for an ephemeral one). */
  @IsOptional()
  @IsInt()
  message_flags?: number;

  /**
   * Type 2/4: `{id, name, type, options, target_id}` (the command); type 3: `{component_type,
   * custom_id, values}`; type 5: `{custom_id, components}`.
   */
  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject()
  data: Record<string, unknown>;
}
