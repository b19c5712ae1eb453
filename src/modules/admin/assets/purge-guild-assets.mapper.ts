import type { GuildAssetPurgeResult } from './purge-guild-assets.response';

/** What the service found and did for one guild. */
export interface GuildPurgeOutcome {
  guildId: string;
  deleted: number;
  bytesFreed: number;
  errors: string[];
}

export function toGuildAssetPurgeResult(o: GuildPurgeOutcome): GuildAssetPurgeResult {
  return { guild_id: o.guildId, deleted: o.deleted, bytes_freed: o.bytesFreed, errors: o.errors };
}
