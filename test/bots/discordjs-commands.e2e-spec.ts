import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  type Client,
  GatewayIntentBits,
  PermissionFlagsBits,
} from 'discord.js';
import { http } from '../helpers/app';
import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { loginDiscordJs } from '../helpers/discordjs';

/**
 * discord.js 14, unmodified (only `rest.api` set), registering its application commands the way
 * every slash-command bot does at start-up: `client.application.commands.set()` (global) and
 * `guild.commands.set()`, then `fetch()` — REST on one instance, the gateway on another.
 */
describe('bots: discord.js application commands', () => {
  let setup: BotGuild;
  let client: Client;

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    client = await loginDiscordJs(setup.restPort, setup.application.botToken, [
      GatewayIntentBits.Guilds,
    ]);
  }, 60_000);

  afterAll(async () => {
    await client?.destroy();
    await setup?.close();
  });

  const stored = async (path: string) =>
    (
      await http(setup.rest)
        .get(`/v1/applications/${setup.application.id}${path}`)
        .set('Authorization', `Bot ${setup.application.botToken}`)
        .expect(200)
    ).body as Array<Record<string, unknown>>;

  it('client.application.commands.set() registers the global commands', async () => {
    const set = await client.application!.commands.set([
      { name: 'ping', description: 'Replies with pong' },
      {
        name: 'paint',
        description: 'Paints something',
        nameLocalizations: { fr: 'peindre' },
        defaultMemberPermissions: PermissionFlagsBits.ManageMessages,
        options: [
          {
            type: ApplicationCommandOptionType.String,
            name: 'colour',
            description: 'Which colour',
            required: true,
            choices: [
              { name: 'Red', value: 'red' },
              { name: 'Blue', value: 'blue' },
            ],
          },
          {
            type: ApplicationCommandOptionType.Integer,
            name: 'coats',
            description: 'How many coats',
            minValue: 1,
            maxValue: 5,
          },
        ],
      },
      {
        name: 'tag',
        description: 'Tags',
        options: [
          {
            type: ApplicationCommandOptionType.Subcommand,
            name: 'add',
            description: 'Add one',
            options: [
              { type: ApplicationCommandOptionType.String, name: 'text', description: 'The tag' },
            ],
          },
          {
            type: ApplicationCommandOptionType.SubcommandGroup,
            name: 'admin',
            description: 'Administration',
            options: [
              { type: ApplicationCommandOptionType.Subcommand, name: 'purge', description: 'All' },
            ],
          },
        ],
      },
      { type: ApplicationCommandType.User, name: 'High Five' },
      { type: ApplicationCommandType.Message, name: 'Quote' },
    ]);
    expect(set.size).toBe(5);
    const paint = set.find((c) => c.name === 'paint')!;
    expect(paint.applicationId).toBe(setup.application.id);
    expect(paint.nameLocalizations).toEqual({ fr: 'peindre' });
    expect(paint.defaultMemberPermissions?.has(PermissionFlagsBits.ManageMessages)).toBe(true);
    expect(paint.options.map((o) => o.name)).toEqual(['colour', 'coats']);
    expect(set.find((c) => c.name === 'High Five')!.type).toBe(ApplicationCommandType.User);

    const names = (await stored('/commands')).map((c) => c.name).sort();
    expect(names).toEqual(['High Five', 'Quote', 'paint', 'ping', 'tag']);

    const fetched = await client.application!.commands.fetch();
    expect([...fetched.values()].map((c) => c.name).sort()).toEqual(names);
    const one = await client.application!.commands.fetch(paint.id, { force: true });
    expect(one.version).toBe(paint.version);
  });

  it('guild.commands.set() registers the guild’s commands; a second set keeps ids', async () => {
    const guild = client.guilds.cache.get(setup.g.guildId)!;
    const first = await guild.commands.set([
      { name: 'local', description: 'Only here' },
      { type: ApplicationCommandType.Message, name: 'Report' },
    ]);
    expect([...first.values()].map((c) => c.guildId)).toEqual([guild.id, guild.id]);
    const again = await guild.commands.set([{ name: 'local', description: 'Only here, still' }]);
    expect(again.first()!.id).toBe(first.find((c) => c.name === 'local')!.id);

    const fetched = await guild.commands.fetch();
    expect([...fetched.values()].map((c) => c.description)).toEqual(['Only here, still']);
    const rows = await stored(`/guilds/${guild.id}/commands`);
    expect(rows.map((c) => c.name)).toEqual(['local']);

    const created = await guild.commands.create({ name: 'extra', description: 'One more' });
    await guild.commands.edit(created.id, { description: 'Edited' });
    await guild.commands.delete(created.id);
    expect((await stored(`/guilds/${guild.id}/commands`)).map((c) => c.name)).toEqual(['local']);
  });
});
