import { DataSource } from 'typeorm';
import { Attachments1796000014000 } from '../../migrations/1796000014000-Attachments';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, isolatedDatabase } from '../helpers/app';
import { registerUser } from '../helpers/factories';
import { createGuild } from '../helpers/guild-factories';

const PREVIOUS = String((1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 31n));
const WITH_FILES = String((1n << 10n) | (1n << 11n) | (1n << 15n) | (1n << 16n) | (1n << 31n));
const CUSTOM = String(1n << 10n);

/**
 * Migration 1796000014000 on guilds made before it: an @everyone with the previous default gets
 * ATTACH_FILES (members may post files, as on Discord), one its guild changed stays as it is;
 * down() takes the bit back. On a database of its own (it drops and recreates the table).
 */
describe('migration: ATTACH_FILES for existing guilds', () => {
  let db: { url: string; drop(): Promise<void> };
  let app: ParleyApp;

  beforeAll(async () => {
    db = await isolatedDatabase();
    app = await createTestApp({ env: { DATABASE_URL: db.url } });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('gives new guilds ATTACH_FILES, and updates @everyone rows with the previous default only, both ways', async () => {
    const owner = await registerUser(app);
    const [plain, custom] = [
      await createGuild(app, owner.token),
      await createGuild(app, owner.token),
    ];
    const runner = app.get(DataSource).createQueryRunner();
    await runner.connect();
    const everyone = async (guildId: string) =>
      (
        (await runner.query('SELECT permissions::text AS p FROM guild_roles WHERE id = $1', [
          guildId,
        ])) as Array<{ p: string }>
      )[0].p;
    try {
      await runner.startTransaction();
      expect(await everyone(plain.guildId)).toBe(WITH_FILES);
      await runner.query('UPDATE guild_roles SET permissions = $1 WHERE id = $2', [
        CUSTOM,
        custom.guildId,
      ]);
      const migration = new Attachments1796000014000();
      await migration.down(runner);
      expect(await everyone(plain.guildId)).toBe(PREVIOUS);
      await migration.up(runner);
      expect(await everyone(plain.guildId)).toBe(WITH_FILES);
      expect(await everyone(custom.guildId)).toBe(CUSTOM);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
