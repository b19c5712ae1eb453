import { ApplicationCommands1796000010000 } from '../../migrations/1796000010000-ApplicationCommands';
import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, isolatedDatabase } from '../helpers/app';
import { checkEveryoneMigration } from '../helpers/everyone-migration';

const OLD_DEFAULT = String((1n << 10n) | (1n << 11n) | (1n << 16n));
const NEW_DEFAULT = String((1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 31n));

/**
 * Migration 1796000010000 on guilds made before it: an @everyone with the old default gets
 * USE_APPLICATION_COMMANDS, one its guild changed stays as it is; down() takes the bit back.
 * On a database of its own (it drops and recreates the command tables).
 */
describe('migration: USE_APPLICATION_COMMANDS for existing guilds', () => {
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

  it('updates @everyone rows with the old default only, both ways', async () => {
    await checkEveryoneMigration(app, new ApplicationCommands1796000010000(), {
      before: OLD_DEFAULT,
      after: NEW_DEFAULT,
    });
  });
});
