import { Injectable } from '@nestjs/common';

/** A webhook's inbound signing secret: the HMAC key, and its sealed form as stored. */
export interface SigningSecret {
  key: Buffer;
  sealed: string;
}

export interface CachedWebhook {
  tokenHash: Buffer;
  /** null: deliveries need no signature. Cached with the token so the check costs no query. */
  signing: SigningSecret | null;
  expiresAt: number;
}

/** How long a webhook's token hash and signing secret are trusted from memory. */
export const WEBHOOK_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * In-process cache of id → token hash (and signing secret) for execute, to skip the lookup round
 * trip. It only ever answers "is this token right" and "which secret signs deliveries"; the
 * message INSERT re-checks id + token hash (and, on signed routes, the sealed secret) against the
 * table in the same statement, so a webhook deleted or re-keyed on another instance stops posting
 * at once.
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

  set(id: string, tokenHash: Buffer, signing: SigningSecret | null): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(id, { tokenHash, signing, expiresAt: Date.now() + WEBHOOK_CACHE_TTL_MS });
  }

  evict(id: string): void {
    this.entries.delete(id);
  }
}
