import { http } from '../helpers/app';
import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { reportOf, runDiscordPy, type BotReport } from '../helpers/discordpy';

/**
 * An unmodified discord.py 2.2 bot (test/bots/discordpy_commands_bot.py) syncing its command tree
 * in `setup_hook` — globally and for one guild — and then logging in: REST on one instance, the
 * gateway on another.
 */
describe('bots: discord.py app_commands.CommandTree.sync()', () => {
  let setup: BotGuild;
  let run: { reports: BotReport[]; code: number | null; stderr: string };

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    run = await runDiscordPy('discordpy_commands_bot.py', {
      PARLEY_API: `http://127.0.0.1:${setup.restPort}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      BOT_TOKEN: setup.application.botToken,
      GUILD_ID: setup.g.guildId,
    });
  }, 150_000);

  afterAll(async () => {
    await setup?.close();
  });

  const stored = async (path: string) =>
    (
      await http(setup.rest)
        .get(`/v1/applications/${setup.application.id}${path}`)
        .set('Authorization', `Bot ${setup.application.botToken}`)
        .expect(200)
    ).body as Array<Record<string, unknown>>;

  it('syncs without an error and goes on to log in', () => {
    expect(run.reports.filter((r) => r.step === 'error')).toEqual([]);
    expect(reportOf(run, 'ready')).toEqual({
      step: 'ready',
      application_id: setup.application.id,
    });
    expect(run.code).toBe(0);
  });

  it('tree.sync() stores the global commands: slash, group and context menu', async () => {
    expect(reportOf(run, 'global').commands).toEqual([
      { name: 'High Five', type: 2, options: [] },
      { name: 'paint', type: 1, options: ['colour', 'coats'] },
      { name: 'ping', type: 1, options: [] },
      { name: 'tag', type: 1, options: ['add'] },
    ]);
    const rows = await stored('/commands');
    expect(rows.map((c) => c.name).sort()).toEqual(['High Five', 'paint', 'ping', 'tag']);
    expect(reportOf(run, 'paint')).toEqual({
      step: 'paint',
      permissions: 8192,
      choices: ['red', 'blue'],
      coats: [1, 5],
    });
    // discord.py sends the permissions as an integer; they are stored as Discord's string.
    expect(rows.find((c) => c.name === 'paint')).toMatchObject({
      default_member_permissions: '8192',
      dm_permission: true,
    });
  });

  it('tree.sync(guild=...) stores the guild’s commands', async () => {
    expect(reportOf(run, 'guild').commands).toEqual([{ name: 'local', type: 1, options: [] }]);
    const rows = await stored(`/guilds/${setup.g.guildId}/commands`);
    expect(rows).toEqual([expect.objectContaining({ name: 'local', guild_id: setup.g.guildId })]);
    expect(reportOf(run, 'fetched').names).toEqual(['High Five', 'paint', 'ping', 'tag']);
  });
});
