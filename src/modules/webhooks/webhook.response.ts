import { ApiProperty } from '@nestjs/swagger';
import { UserPartialResponse } from '../users/user.response';

/** WebhookTokenResponse: a webhook as seen through its token. */
export class WebhookTokenResponse {
  @ApiProperty({ example: '1234567890123456789' })
  id: string;
  /** WebhookType: 1 incoming, 2 channel follower. */
  @ApiProperty({ example: 1, enum: [1, 2] })
  type: number;
  guild_id: string;
  channel_id: string;
  name: string;
  /** Avatar hash. */
  avatar: string | null;
  /** Execution token (64 alphanumerics). */
  token: string;
}

/** WebhookResponse: WebhookTokenResponse plus the creator. */
export class WebhookResponse extends WebhookTokenResponse {
  /** The user who created the webhook (null when that account was deleted). */
  @ApiProperty({ type: UserPartialResponse, nullable: true })
  user: UserPartialResponse | null;
}
