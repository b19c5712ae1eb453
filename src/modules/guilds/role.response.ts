import { ApiProperty } from '@nestjs/swagger';

/** Discord's role colours: Parley keeps one colour (`primary_color`, the same as `color`). */
export class RoleColorsResponse {
  primary_color: number;
  /** Always null (no gradients). */
  @ApiProperty({ type: Number, nullable: true, example: null })
  secondary_color: number | null;
  /** Always null (no holographic roles). */
  @ApiProperty({ type: Number, nullable: true, example: null })
  tertiary_color: number | null;
}

/** What a managed role belongs to. */
export class RoleTagsResponse {
  /** The bot user whose role this is. */
  @ApiProperty({ example: '1302155402916429824' })
  bot_id: string;
}

/** Discord's role object (REST and gateway alike). @everyone has the guild's id. */
export class RoleResponse {
  @ApiProperty({ example: '1302157766466207744' })
  id: string;
  name: string;
  /** RGB as an integer; 0 = no colour. */
  color: number;
  colors: RoleColorsResponse;
  /** Shown apart in the member list. */
  hoist: boolean;
  /** Always null (no role icons). */
  @ApiProperty({ type: String, nullable: true, example: null })
  icon: string | null;
  @ApiProperty({ type: String, nullable: true, example: null })
  unicode_emoji: string | null;
  /** Higher is higher in the hierarchy; at the same position the older role (lower id) is higher. */
  position: number;
  /** Permission bitfield, as a decimal string. */
  @ApiProperty({ example: '3072' })
  permissions: string;
  /** A bot's role, made when it was installed: it goes with the bot and is not given by hand. */
  managed: boolean;
  mentionable: boolean;
  /** Present on managed roles. */
  @ApiProperty({ required: false, type: () => RoleTagsResponse })
  tags?: RoleTagsResponse;
  /** Always 0. */
  flags: number;
}
