/**
 * A ceiling measured without HTTP, run by the bench as its own process on the same runtime (and
 * node_modules) as the server it is compared with, while the servers are idle: `concurrency`
 * promises each repeat one operation for the warm-up, then for the measured duration.
 * The spec comes in BENCH_CEILING (JSON); the result is printed as one JSON line on stdout.
 */
import { performance } from 'node:perf_hooks';
import * as argon2 from 'argon2';
import { Pool } from 'pg';
import { SnowflakeGenerator } from '../src/common/snowflake/snowflake';
import type { MessageDraft } from '../src/modules/guilds/embeds/embed';

interface Timing {
  concurrency: number;
  warmupSeconds: number;
  seconds: number;
}

/** What a ceiling repeats. */
export type CeilingWork =
  | {
      /** argon2.verify of the right password against a hash the app stored at registration. */
      kind: 'argon2';
      hash: string;
      password: string;
    }
  | {
      /** A plain INSERT of the message row the app writes for `draft` through a pg.Pool. */
      kind: 'insert';
      databaseUrl: string;
      poolSize: number;
      webhook: { id: string; channelId: string; name: string };
      draft: MessageDraft;
    };

export type CeilingSpec = Timing & CeilingWork;

export interface CeilingResult {
  ops: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  firstError?: string;
  note: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;

/**
 * `concurrency` promises each repeat `op` until the deadline. Only operations that finish before
 * it count, and the rate is divided by the nominal duration, as autocannon's is.
 */
async function loop(op: () => Promise<void>, concurrency: number, seconds: number) {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        await op();
        const end = performance.now();
        if (end <= deadline) latencies.push(end - start);
      } catch (err) {
        errors += 1;
        firstError ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, errors, firstError };
}

async function prepare(spec: CeilingSpec): Promise<{
  op: () => Promise<void>;
  close?: () => Promise<void>;
  note: string;
}> {
  switch (spec.kind) {
    case 'argon2': {
      const params = spec.hash.split('$').slice(0, 4).join('$');
      return {
        op: async () => {
          if (!(await argon2.verify(spec.hash, spec.password))) {
            throw new Error('argon2.verify returned false');
          }
        },
        note: `the app's stored hash (${params}), UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`,
      };
    }
    case 'insert': {
      const pool = new Pool({
        connectionString: spec.databaseUrl,
        max: spec.poolSize,
        application_name: 'parley-bench-ceiling',
      });
      // Worker id 1023: ids cannot collide with the app's (worker 0).
      const ids = new SnowflakeGenerator(1023);
      const { draft, webhook } = spec;
      const embeds = JSON.stringify(draft.embeds);
      const sql = `
        INSERT INTO messages (id, channel_id, author_id, webhook_id, webhook_name, webhook_avatar, content, embeds)
        VALUES ($1, $2, NULL, $3, $4, $5, $6, $7::jsonb)
        RETURNING id::text AS id, channel_id::text AS channel_id, webhook_name, webhook_avatar, created_at`;
      return {
        op: async () => {
          const res = await pool.query(sql, [
            ids.next(),
            webhook.channelId,
            webhook.id,
            draft.username ?? webhook.name,
            draft.avatar_url ?? null,
            draft.content ?? '',
            embeds,
          ]);
          if (res.rowCount !== 1) throw new Error('INSERT inserted no row');
        },
        close: () => pool.end(),
        note: `pg.Pool max ${spec.poolSize}, ${embeds.length} B of embeds JSON`,
      };
    }
  }
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.env.BENCH_CEILING ?? '') as CeilingSpec;
  const { op, close, note } = await prepare(spec);
  try {
    await op(); // the probe: a ceiling that fails is invalid, not fast
    await loop(op, spec.concurrency, spec.warmupSeconds);
    const r = await loop(op, spec.concurrency, spec.seconds);
    const sorted = r.latencies.sort((a, b) => a - b);
    const result: CeilingResult = {
      ops: sorted.length,
      rps: sorted.length / spec.seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      errors: r.errors,
      firstError: r.errors ? String(r.firstError) : undefined,
      note: `${spec.concurrency} concurrent promise(s); ${note}`,
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await close?.();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
