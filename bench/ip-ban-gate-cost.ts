/**
 * What the IP ban check adds to a request that passes it, measured on the gate both HTTP platforms
 * call before routing (`IpBanGate.check`) with a client address, so the throughput rows' noise
 * does not hide it: the load rows of one run move by more than the few percent the check could
 * cost on this 2-core machine (see bench/RESULTS.md).
 *
 *   npm run build && node dist/bench/ip-ban-gate-cost.js      (or with Node 24's binary)
 *
 * The hot path is a cached decision for the client address (`request.ip`, computed by the
 * framework with the trust-proxy setting): one Map lookup. A cache miss costs one indexed query
 * (GiST on `ip_bans.range`) once per address until the next ban change.
 */
import type { BanChecks } from '../src/modules/bans/ban-checks.service';
import { IpBanGate } from '../src/modules/bans/ip-ban-gate';
import type { DatabaseNotifications } from '../src/database/notifications';
import type { DatabaseOutageTracker } from '../src/common/lifecycle/database-outage.tracker';

const ROUNDS = 5;
const PER_ROUND = 2_000_000;

async function main(): Promise<void> {
  const checks = { isIpBanned: () => Promise.resolve(false) } as unknown as BanChecks;
  // Notifications "listening" at once, as on a server whose LISTEN connection is up.
  const notifications = {
    listen: (_channel: string, l: { onListening(on: boolean): void }) => l.onListening(true),
  } as unknown as DatabaseNotifications;
  const outage = { down: false } as unknown as DatabaseOutageTracker;
  const gate = new IpBanGate(checks, notifications, outage);
  gate.onModuleInit();

  const ip = '127.0.0.1';
  let passed = 0;
  const next = (refusal?: unknown): void => {
    if (!refusal) passed += 1;
  };
  // First request: the decision is looked up and cached.
  await new Promise<void>((done) => gate.check(ip, () => done()));

  const results: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i++) gate.check(ip, next);
    results.push(Number(process.hrtime.bigint() - start) / PER_ROUND);
  }
  if (passed !== ROUNDS * PER_ROUND) throw new Error(`only ${passed} requests passed the gate`);
  results.sort((a, b) => a - b);
  console.log(
    `Node ${process.versions.node}: IpBanGate.check, cached decision: ` +
      `median ${results[Math.floor(ROUNDS / 2)].toFixed(0)} ns per request ` +
      `(rounds: ${results.map((r) => r.toFixed(0)).join(', ')} ns)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
