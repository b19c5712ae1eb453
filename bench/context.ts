/**
 * The BenchContext fixtures are made with: fetch() against a Parley server, and statements on
 * the bench database. Shared by the bench run and the heap check.
 */
import type { Pool } from 'pg';
import type { BenchContext } from './targets';

/** A request body as sent: strings as they are, anything else as JSON. */
export function encodeBody(body: unknown): { body?: string; type?: string } {
  if (body === undefined) return {};
  if (typeof body === 'string') return { body };
  return { body: JSON.stringify(body), type: 'application/json' };
}

export function makeContext(
  parleyUrl: string,
  databaseUrl: string,
  pool: Pool,
  connections: number,
): BenchContext {
  return {
    parleyUrl,
    databaseUrl,
    connections,
    async call<T>(
      method: string,
      path: string,
      init: { headers?: Record<string, string>; body?: unknown; expect?: number } = {},
    ): Promise<T> {
      const { body, type } = encodeBody(init.body);
      const res = await fetch(parleyUrl + path, {
        method,
        headers: { ...(type ? { 'content-type': type } : {}), ...init.headers },
        body,
      });
      const text = await res.text();
      const expect = init.expect ?? 200;
      if (res.status !== expect) {
        throw new Error(`${method} ${path}: expected ${expect}, got ${res.status} ${text}`);
      }
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      return (await pool.query(sql, params)).rows as T[];
    },
  };
}
