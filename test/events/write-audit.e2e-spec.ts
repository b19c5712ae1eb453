import { Client } from 'pg';
import { checkWritesAnnounced } from '../setup/write-audit';
import { isolatedDatabase } from '../helpers/app';

/**
 * The check that runs on every test database when the run ends (test/setup/write-audit.ts) can
 * fail: a write committed without its event is reported, a fixture's is not.
 */
describe('the announced-writes check', () => {
  it('reports a write committed without its event, and passes once it is a fixture', async () => {
    const db = await isolatedDatabase();
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(`INSERT INTO users (id, username, discriminator) VALUES (42, 'quiet', '0001')`);
      await c.query(`UPDATE users SET username = 'renamed' WHERE id = 42`);
      await expect(checkWritesAnnounced(db.url)).rejects.toThrow(
        /1 write\(s\) were committed without their realtime event[\s\S]*UPDATE users \{"id":"42"/,
      );
      await c.query('DELETE FROM test_write_audit');
      await c.query('BEGIN');
      await c.query(`SET LOCAL parley.fixture = 'on'`);
      await c.query(`UPDATE users SET username = 'again' WHERE id = 42`);
      await c.query('COMMIT');
      await expect(checkWritesAnnounced(db.url)).resolves.toEqual({ writes: 0, events: 0 });
    } finally {
      await c.end();
      await db.drop();
    }
  });
});
