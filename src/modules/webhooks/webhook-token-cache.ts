import { Injectable } from '@nestjs/common';

export interface CachedWebhook {
  tokenHash: Buffer;
  expiresAt: number;
}

/** How long a webhook's token hash is trusted from memory. */
export const WEBHOOK_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * In-process cache of id → token hash for execute, to skip the lookup round trip. It only ever
 * answers "is this token right"; the message INSERT re-checks id + token hash against the table
 * in the same statement, so a webhook deleted on another instance stops posting at once.
 * PATCH/DELETE in this process evict the entry.
 */
@Injectable()
export class WebhookTokenCache {
  private readonly entries = new Map<string, CachedWebhook>();

  get(id: string): CachedWebhook | undefined {
    const hit = this.entries.get(id);
    if (!hit) return undefined;
    if (hit.expiresAt <= Date.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return hit;
  }

  set(id: string, tokenHash: Buffer): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(id, { tokenHash, expiresAt: Date.now() + WEBHOOK_CACHE_TTL_MS });
  }

  evict(id: string): void {
    this.entries.delete(id);
  }
}
