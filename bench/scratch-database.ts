import { Client } from 'pg';

/**
 * The database a bench's Parley servers use: BENCH_DATABASE_URL as given, or a scratch database
 * made on the server of BENCH_PG (named after `prefix` and this process) and dropped by `drop()`.
 */
export async function scratchDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) {
    return { url: process.env.BENCH_DATABASE_URL, drop: async () => undefined };
  }
  const server = process.env.BENCH_PG;
  if (!server)
    throw new Error('set BENCH_PG=postgres://postgres@127.0.0.1:5432 (or BENCH_DATABASE_URL)');
  const name = `${prefix}_${process.pid}`;
  const admin = async (sql: string) => {
    const c = new Client({ connectionString: server });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
