import { ApiProperty } from '@nestjs/swagger';
import { MessageResponse } from '../guilds/guild.response';

/** The interaction an answer was for (Discord's interaction callback object). */
export class InteractionCallbackInteraction {
  id: string;
  /** The interaction's type (2 command, 3 component, 4 autocomplete, 5 modal submit). */
  type: number;
  /** The message the answer posted (callback 4 and 5). */
  @ApiProperty({ required: false })
  response_message_id?: string;
  /** Whether that message is a deferred placeholder (callback 5). */
  @ApiProperty({ required: false })
  response_message_loading?: boolean;
  /** Whether that message is ephemeral. */
  @ApiProperty({ required: false })
  response_message_ephemeral?: boolean;
}

/** What the answer made (Discord's callback resource). */
export class InteractionCallbackResource {
  /** The callback type. */
  type: number;
  /** The message it posted (callback 4 and 5). */
  @ApiProperty({ required: false, type: () => MessageResponse })
  message?: MessageResponse;
}

/** Discord's interaction callback response (`?with_response=true`). */
export class InteractionCallbackResponse {
  interaction: InteractionCallbackInteraction;
  @ApiProperty({ required: false, type: () => InteractionCallbackResource })
  resource?: InteractionCallbackResource;
}
