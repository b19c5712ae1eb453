import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { runDiscordPy, reportOf, type BotReport } from '../helpers/discordpy';
import type { TestUser } from '../helpers/factories';
import type { TestGuild } from '../helpers/guild-factories';

/**
 * An unmodified discord.py `commands.Bot` (test/bots/discordpy_guild_bot.py) doing what guild
 * bots do every day, with its REST calls going to one Parley instance and its gateway connection
 * to another (same database and Redis): prefix commands answered with `ctx.reply`,
 * `has_permissions`, `ctx.author.roles`, `guild.chunk()`, typing, reactions, pins, purge, roles
 * and bans.
 */
describe('bots: discord.py guild operations across two instances', () => {
  let setup: BotGuild;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let run: { reports: BotReport[]; code: number | null; stderr: string };

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    ({ owner, member, g } = setup);
    run = await runDiscordPy('discordpy_guild_bot.py', {
      PARLEY_API: `http://127.0.0.1:${setup.restPort}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      BOT_TOKEN: setup.application.botToken,
      CHANNEL_ID: g.channelId,
      OWNER_TOKEN: owner.token,
      MEMBER_TOKEN: member.token,
      MEMBER_ID: member.userId,
    });
  }, 150_000);

  afterAll(async () => {
    await setup?.close();
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
