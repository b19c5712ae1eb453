import type { MigrationInterface } from 'typeorm';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { registerUser } from './factories';
import { createGuild } from './guild-factories';

/** An @everyone its guild changed: a migration must leave it as it is. */
const CUSTOM = String(1n << 10n);

/**
 * A migration that moves @everyone's default permissions from `before` to `after`: down() takes
 * the guild made with `after` back to `before`, up() brings it forward again, and an @everyone
 * its guild changed stays as it is both ways. In one transaction, rolled back (run it on a
 * database of the suite's own: down() may drop and recreate tables).
 */
export async function checkEveryoneMigration(
  app: ParleyApp,
  migration: MigrationInterface,
  defaults: { before: string; after: string },
): Promise<void> {
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
  const set = (guildId: string, permissions: string) =>
    runner.query('UPDATE guild_roles SET permissions = $1 WHERE id = $2', [permissions, guildId]);
  try {
    await runner.startTransaction();
    // The state the migration left (later ones may add more to a new guild's @everyone).
    await set(plain.guildId, defaults.after);
    await set(custom.guildId, CUSTOM);
    await migration.down(runner);
    expect(await everyone(plain.guildId)).toBe(defaults.before);
    await migration.up(runner);
    expect(await everyone(plain.guildId)).toBe(defaults.after);
    expect(await everyone(custom.guildId)).toBe(CUSTOM);
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}
