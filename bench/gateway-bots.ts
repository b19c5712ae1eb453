/**
 * The gateway bench's rows for what bots do every day (issue 28): reaction add → event latency
 * and op 8's member chunks of a 10,000-member guild (the typing fan-out row is in gateway.ts,
 * beside the message fan-out it mirrors).
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import WebSocket from 'ws';
import { json } from './api';
import { identify, openMany, sleep, waitUntil, type Fixtures } from './gateway-clients';

/** Reactions with 1,000 clients connected: PUT …/reactions/👍/@me → the event at one client. */
export async function reactionLatency(
  base: string,
  fx: Fixtures,
  wsUrl: string,
  clients: number,
): Promise<{ p50: number; p99: number; received: number; sent: number }> {
  const rate = 20;
  const seconds = 10;
  const auth = { authorization: fx.token };
  // A message per reaction: the same user adding the same emoji twice is no event.
  const ids: string[] = [];
  for (let i = 0; i < rate * seconds; i++) {
    const m = await json<{ id: string }>(`${base}/v1/channels/${fx.channelId}/messages`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ content: `react ${i}` }),
      expect: 201,
    });
    ids.push(m.id);
  }
  const conns = await openMany(wsUrl, fx.token, clients);
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  conns[0].onText = (text) => {
    if (!text.includes('"t":"MESSAGE_REACTION_ADD"')) return;
    const m = /"message_id":"(\d+)"/.exec(text);
    const t = m && sentAt.get(m[1]);
    if (t) latencies.push(performance.now() - t);
  };
  await sleep(1_000);
  const puts: Array<Promise<unknown>> = [];
  const t0 = performance.now();
  for (let i = 0; i < ids.length; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    sentAt.set(ids[i], performance.now());
    const url = `${base}/v1/channels/${fx.channelId}/messages/${ids[i]}/reactions/%F0%9F%91%8D/@me`;
    puts.push(fetch(url, { method: 'PUT', headers: auth }).then((r) => r.arrayBuffer()));
  }
  await Promise.all(puts);
  await waitUntil(() => latencies.length >= ids.length, 10_000);
  for (const c of conns) c.close();
  await sleep(1_000);
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { p50: q(0.5), p99: q(0.99), received: latencies.length, sent: ids.length };
}

/** Members the chunk row's guild gets (with its owner: 10,000). */
export const MEMBERS_SEEDED = 9_999;

/** Users and memberships written straight to the database (no route adds 10,000 at once). */
export async function seedMembers(dbUrl: string, guildId: string, n: number): Promise<void> {
  const client = new Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const base = BigInt(guildId) * 2n;
    const ids = Array.from({ length: n }, (_, i) => (base + BigInt(i)).toString());
    await client.query(
      `INSERT INTO users (id, username, discriminator)
       SELECT id, 'm' || id, '0001' FROM unnest($1::bigint[]) AS s(id) ON CONFLICT DO NOTHING`,
      [ids],
    );
    await client.query(
      `INSERT INTO guild_members (guild_id, user_id, roles, joined_at)
       SELECT $1, id, '{}', now() FROM unnest($2::bigint[]) AS s(id) ON CONFLICT DO NOTHING`,
      [guildId, ids],
    );
  } finally {
    await client.end();
  }
}

/** One session asks for the whole member list (op 8) five times: the median time to the last chunk. */
export async function memberChunks(wsUrl: string, token: string, guildId: string): Promise<number> {
  const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
  const times: number[] = [];
  let started = 0;
  let resolveRound: (() => void) | null = null;
  await new Promise<void>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('{"op":10')) ws.send(identify(token));
      else if (text.includes('"t":"GUILD_CREATE"')) resolve();
      else if (text.includes('"t":"GUILD_MEMBERS_CHUNK"')) {
        const chunk = JSON.parse(text) as { d: { chunk_index: number; chunk_count: number } };
        if (chunk.d.chunk_index === chunk.d.chunk_count - 1) {
          times.push(performance.now() - started);
          resolveRound?.();
        }
      }
    });
  });
  for (let round = 0; round < 5; round++) {
    const done = new Promise<void>((resolve) => (resolveRound = resolve));
    started = performance.now();
    ws.send(JSON.stringify({ op: 8, d: { guild_id: guildId, query: '', limit: 0 } }));
    await done;
  }
  ws.close(1000);
  times.sort((a, b) => a - b);
  return times[2];
}
