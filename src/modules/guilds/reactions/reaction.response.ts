import { ApiProperty } from '@nestjs/swagger';

/** The emoji of a reaction: always a unicode emoji (Parley has no custom emoji). */
export class ReactionEmojiResponse {
  /** Always null: unicode emoji have no id. */
  @ApiProperty({ type: String, nullable: true, example: null })
  id: null;
  /** The emoji itself. */
  @ApiProperty({ example: '👍' })
  name: string;
}

/** Discord's split of a reaction's count. */
export class ReactionCountDetailsResponse {
  /** Always 0 (no super reactions). */
  @ApiProperty({ example: 0 })
  burst: number;
  /** The same as `count`. */
  normal: number;
}

/** Discord's reaction object: one emoji on a message, with how many reacted with it. */
export class ReactionResponse {
  /** How many users reacted with the emoji. */
  count: number;
  count_details: ReactionCountDetailsResponse;
  /** Whether the caller is one of them. */
  me: boolean;
  /** Always false (no super reactions). */
  me_burst: boolean;
  emoji: ReactionEmojiResponse;
  /** Always empty (no super reactions). */
  @ApiProperty({ type: [String], example: [] })
  burst_colors: string[];
}
