import { Injectable } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';

/** The most a ban add waits for reverse DNS names (all of them together). */
export const REVERSE_DNS_BUDGET_MS = 1_500;

/**
 * Reverse DNS (PTR) names for IP bans, looked up when a ban is added and stored with it, so the
 * list can show them. Bounded: whatever has not answered within the budget is stored as null
 * (the add still answers well within 2 s); lookups that fail are null too.
 */
@Injectable()
export class ReverseDns {
  /** The PTR name of each address (null when none arrived in time), in the order given. */
  async lookupAll(
    addresses: string[],
    budgetMs = REVERSE_DNS_BUDGET_MS,
  ): Promise<(string | null)[]> {
    if (addresses.length === 0) return [];
    const resolver = new Resolver({ timeout: budgetMs, tries: 1 });
    const names = addresses.map((a) => this.lookup(resolver, a));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), budgetMs)));
    const settled = names.map((p) => Promise.race([p, deadline]));
    try {
      const results = await Promise.all(settled);
      return results.map((r) => (r === 'late' ? null : r));
    } finally {
      clearTimeout(timer);
      resolver.cancel();
    }
  }

  /** One address's first PTR name (null on failure). */
  async lookup(resolver: Resolver, address: string): Promise<string | null> {
    try {
      const [name] = await resolver.reverse(address);
      return name ? name.slice(0, 253) : null;
    } catch {
      return null;
    }
  }
}
