import { ApiProperty } from '@nestjs/swagger';

/** Why one item of a bulk operation failed. */
export enum BulkFailureCode {
  /** No user has this id. */
  UnknownUser = 'UNKNOWN_USER',
  /** Bot users join guilds through the OAuth2 `bot` install, not by a bulk add. */
  BotUser = 'BOT_USER',
  /** Banned from the guild (Discord's guild ban): unban them first. */
  Banned = 'BANNED_FROM_GUILD',
}

export class BulkOperationFailure {
  /** The id of the item that failed. */
  @ApiProperty({ example: '1300000000000000002' })
  id: string;

  /** Why it failed. */
  @ApiProperty({ enum: BulkFailureCode, enumName: 'BulkFailureCode', example: 'UNKNOWN_USER' })
  error: BulkFailureCode;
}

/** BulkOperationResponse: each requested id is either in `successful` or in `failed`. */
export class BulkOperationResponse {
  /** Ids that succeeded (for members: added, or already members), in request order. */
  @ApiProperty({ type: [String], example: ['1300000000000000001'] })
  successful: string[];

  /** Ids that failed, with the reason, in request order. */
  @ApiProperty({ type: [BulkOperationFailure] })
  failed: BulkOperationFailure[];
}
