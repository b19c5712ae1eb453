import type { ParleyApp } from '../../src/app.setup';
import { createTestApp } from '../helpers/app';
import { runDiscordPy, reportOf, type BotReport } from '../helpers/discordpy';
import { registerUser, type TestUser } from '../helpers/factories';
import { addMember, createGuild, type TestGuild } from '../helpers/guild-factories';
import {
  createApplication,
  installBot,
  MEMBERS_INTENT_FLAG,
  MESSAGE_CONTENT_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';

/** What the bot is installed with: view, send, history, reactions, messages, roles, bans. */
const BOT_PERMISSIONS = String(
  (1n << 10n) | (1n << 11n) | (1n << 16n) | (1n << 6n) | (1n << 13n) | (1n << 28n) | (1n << 2n),
);

/**
 * An unmodified discord.py `commands.Bot` (test/bots/discordpy_guild_bot.py) doing what guild
 * bots do every day, with its REST calls going to one Parley instance and its gateway connection
 * to another (same database and Redis): prefix commands answered with `ctx.reply`,
 * `has_permissions`, `ctx.author.roles`, `guild.chunk()`, typing, reactions, pins, purge, roles
 * and bans.
 */
describe('bots: discord.py guild operations across two instances', () => {
  let rest: ParleyApp;
  let gateway: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let application: TestApplication;
  let run: { reports: BotReport[]; code: number | null; stderr: string };

  beforeAll(async () => {
    const [restPort, gatewayPort] = [await serverPort(), await serverPort()];
    const shared = { REDIS_URL: process.env.TEST_REDIS_URL! };
    rest = await createTestApp({ env: shared });
    gateway = await createTestApp({ env: shared });
    await rest.listen(restPort, '127.0.0.1');
    await gateway.listen(gatewayPort, '127.0.0.1');
    [owner, member] = await Promise.all([registerUser(rest), registerUser(rest)]);
    g = await createGuild(rest, owner.token);
    await addMember(rest, g.guildId, member.userId);
    application = await createApplication(rest, owner);
    await setApplicationFlags(
      rest,
      owner,
      application,
      MESSAGE_CONTENT_INTENT_FLAG | MEMBERS_INTENT_FLAG,
    );
    await installBot(rest, owner, application, g.guildId, BOT_PERMISSIONS);
    run = await runDiscordPy('discordpy_guild_bot.py', {
      PARLEY_API: `http://127.0.0.1:${restPort}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${gatewayPort}/gateway`,
      BOT_TOKEN: application.botToken,
      CHANNEL_ID: g.channelId,
      OWNER_TOKEN: owner.token,
      MEMBER_TOKEN: member.token,
      MEMBER_ID: member.userId,
    });
  }, 150_000);

  afterAll(async () => {
    await gateway?.close();
    await rest?.close();
  });

  it('runs every step without an error and exits cleanly', () => {
    expect(run.reports.filter((r) => r.step === 'error')).toEqual([]);
    expect(reportOf(run, 'done')).toEqual({ step: 'done' });
    expect(run.code).toBe(0);
  });

  it('guild.chunk() receives every member through op 8', () => {
    expect(reportOf(run, 'chunked')).toEqual({
      step: 'chunked',
      count: 3, // the owner, the member and the bot
      chunked: true,
      has_member: true,
    });
  });

  it('answers prefix commands with ctx.reply; ctx.author.roles and has_permissions work', () => {
    expect(reportOf(run, 'whoami')).toEqual({
      step: 'whoami',
      reply: { roles: [g.guildId], manage_messages: true },
      type: 19,
    });
    const moderate = run.reports.filter((r) => r.step === 'moderate');
    expect(moderate).toEqual([
      { step: 'moderate', who: 'owner', reply: 'allowed' },
      { step: 'moderate', who: 'member', reply: 'denied: manage_messages' },
    ]);
  });

  it('types, reacts, pins and purges', () => {
    expect(reportOf(run, 'typing')).toEqual({ step: 'typing', ok: true });
    expect(reportOf(run, 'reacted')).toEqual({ step: 'reacted', reactions: [['👍', 1, true]] });
    const pinned = reportOf(run, 'pinned');
    expect(pinned.ids).toEqual([pinned.message_id]);
    const purged = reportOf(run, 'purged');
    expect(purged.deleted).toBe(3);
    expect(purged.left as string[]).not.toContain('to purge 0');
  });

  it('creates a role, gives it to a member and takes it back', () => {
    const roles = reportOf(run, 'roles');
    expect(roles.member_roles).toEqual([g.guildId, roles.role_id].sort());
  });

  it('bans and unbans a member', () => {
    expect(reportOf(run, 'banned')).toEqual({
      step: 'banned',
      users: [member.userId],
      reasons: ['testing bans'],
    });
    expect(reportOf(run, 'unbanned')).toEqual({ step: 'unbanned', users: [] });
  });
});
