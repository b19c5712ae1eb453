import type { Pool, QueryResultRow } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';

/**
 * A statement prepared once per connection (a named `pg` query) and run straight on TypeORM's
 * pool: for the few hot statements of the request path, PostgreSQL then parses and plans them
 * once per connection instead of on every request. Errors come out as TypeORM's
 * QueryFailedError, as from `dataSource.query`, so the exception filter treats them alike.
 * Not for use inside a transaction (it takes its own pooled connection).
 */
export class PreparedStatement<Row extends QueryResultRow> {
  constructor(
    private readonly name: string,
    private readonly text: string,
  ) {}

  async run(db: DataSource, values: unknown[]): Promise<Row[]> {
    const pool = (db.driver as unknown as { master: Pool }).master;
    try {
      const res = await pool.query<Row>({ name: this.name, text: this.text, values });
      return res.rows;
    } catch (err) {
      if ((err as { code?: unknown }).code && typeof (err as { code: unknown }).code === 'string') {
        throw new QueryFailedError(this.text, values, err as Error);
      }
      throw err;
    }
  }
}
