import { ApiProperty } from '@nestjs/swagger';

/** What the purge did for one guild. */
export class GuildAssetPurgeResult {
  /** The requested guild id. */
  @ApiProperty({ example: '1300000000000000000' })
  guild_id: string;

  /** Files deleted from storage (icon, banner and webhook avatar files, current and former). */
  @ApiProperty({ type: 'integer', example: 3 })
  deleted: number;

  /** Bytes those files took. */
  @ApiProperty({ type: 'integer', example: 48213 })
  bytes_freed: number;

  /**
   * What went wrong: `UNKNOWN_GUILD` (nothing done), or `DELETE_FAILED: <file key>` for a file
   * that could not be deleted (its reference is cleared all the same). Empty on success.
   */
  @ApiProperty({ type: [String], example: [] })
  errors: string[];
}

/** PurgeGuildAssetsResponseSchema. */
export class PurgeGuildAssetsResponseSchema {
  /** One entry per requested guild, in request order. */
  @ApiProperty({ type: [GuildAssetPurgeResult] })
  results: GuildAssetPurgeResult[];
}
