import { Attachments1796000014000 } from '../../migrations/1796000014000-Attachments';
import type { ParleyApp } from '../../src/app.setup';
import { http, createTestApp, isolatedDatabase } from '../helpers/app';
import { checkEveryoneMigration } from '../helpers/everyone-migration';
import { registerUser } from '../helpers/factories';
import { createGuild } from '../helpers/guild-factories';

const PREVIOUS = String((1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 31n));
const WITH_FILES = String((1n << 10n) | (1n << 11n) | (1n << 15n) | (1n << 16n) | (1n << 31n));

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

  it('gives a new guild’s @everyone ATTACH_FILES', async () => {
    const owner = await registerUser(app);
    const g = await createGuild(app, owner.token);
    const roles = await http(app)
      .get(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token);
    expect(roles.body.find((r: { id: string }) => r.id === g.guildId).permissions).toBe(WITH_FILES);
  });

  it('updates @everyone rows with the previous default only, both ways', async () => {
    await checkEveryoneMigration(app, new Attachments1796000014000(), {
      before: PREVIOUS,
      after: WITH_FILES,
    });
  });
});
