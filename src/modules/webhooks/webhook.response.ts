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

/** WebhookResponse (the managers' view): WebhookTokenResponse plus the creator and signing state. */
export class WebhookResponse extends WebhookTokenResponse {
  /** The user who created the webhook (null when that account was deleted). */
  @ApiProperty({ type: UserPartialResponse, nullable: true })
  user: UserPartialResponse | null;

  @ApiProperty({
    example: false,
    description:
      'Whether an inbound signing secret is set (`PATCH signing_secret`): then `/repohost` and ' +
      '`/errortracker` deliveries must be signed with it. The secret itself is never returned.',
  })
  signing_secret_set: boolean;
}
