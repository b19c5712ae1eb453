import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type Client,
  ComponentType,
  Events,
  GatewayIntentBits,
  type Message,
  StringSelectMenuBuilder,
  type TextChannel,
} from 'discord.js';
import { http } from '../helpers/app';
import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { loginDiscordJs, waitFor } from '../helpers/discordjs';
import { reportOf, runDiscordPy } from '../helpers/discordpy';

/**
 * Message components sent by unmodified bot libraries — discord.js 14's builders and a
 * discord.py 2.2 `ui.View` — with REST on one Parley instance and the gateway on another: what
 * they send is stored, and what they read back (REST and MESSAGE_CREATE) is what they sent.
 */
describe('bots: message components from discord.js and discord.py', () => {
  let setup: BotGuild;

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
  }, 60_000);

  afterAll(async () => {
    await setup?.close();
  });

  /** The message as its channel's owner reads it on REST. */
  const stored = async (id: string) =>
    (
      await http(setup.rest)
        .get(`/v1/channels/${setup.g.channelId}/messages/${id}`)
        .set('Authorization', setup.owner.token)
        .expect(200)
    ).body as { components: unknown[] };

  describe('discord.js', () => {
    let client: Client;
    let channel: TextChannel;

    beforeAll(async () => {
      client = await loginDiscordJs(setup.restPort, setup.application.botToken, [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
      ]);
      channel = client.channels.cache.get(setup.g.channelId) as TextChannel;
    }, 60_000);

    afterAll(async () => {
      await client?.destroy();
    });

    it('channel.send with builders; message.components reads the same custom ids back', async () => {
      const buttons = new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder()
          .setCustomId('confirm')
          .setLabel('Confirm')
          .setStyle(ButtonStyle.Success),
        new ButtonBuilder().setCustomId('cancel').setLabel('Cancel').setStyle(ButtonStyle.Danger),
        new ButtonBuilder()
          .setURL('https://parley.example/docs')
          .setLabel('Docs')
          .setStyle(ButtonStyle.Link),
      );
      const menu = new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(
        new StringSelectMenuBuilder()
          .setCustomId('size')
          .setPlaceholder('Pick a size')
          .addOptions({ label: 'Small', value: 's' }, { label: 'Large', value: 'l', emoji: '🐘' }),
      );
      const created = waitFor<[Message]>(
        client,
        Events.MessageCreate,
        (m) => m.content === 'pick one',
      );
      const sent = await channel.send({ content: 'pick one', components: [buttons, menu] });

      const customIds = (message: Message) =>
        message.components.map((row) =>
          row.type === ComponentType.ActionRow
            ? row.components.map((c) =>
                c.type === ComponentType.Button ? (c.customId ?? c.url) : c.customId,
              )
            : [],
        );
      const expected = [['confirm', 'cancel', 'https://parley.example/docs'], ['size']];
      expect(customIds(sent)).toEqual(expected);
      const fetched = await channel.messages.fetch({ message: sent.id, force: true });
      expect(customIds(fetched)).toEqual(expected);
      const [event] = await created;
      expect(customIds(event)).toEqual(expected);
      // discord.js reads back exactly what its builders made.
      expect(fetched.components.map((row) => row.toJSON())).toEqual([
        buttons.toJSON(),
        menu.toJSON(),
      ]);
      // Stored as discord.js serialised it.
      expect((await stored(sent.id)).components).toEqual([buttons.toJSON(), menu.toJSON()]);
    });
  });

  it('discord.py: channel.send(view=ui.View) stores the view’s components; edit(view=None) clears them', async () => {
    const run = await runDiscordPy('discordpy_components_bot.py', {
      PARLEY_API: `http://127.0.0.1:${setup.restPort}/api/v10`,
      PARLEY_GATEWAY: `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      BOT_TOKEN: setup.application.botToken,
      CHANNEL_ID: setup.g.channelId,
    });
    expect(run.reports.filter((r) => r.step === 'error')).toEqual([]);
    expect(reportOf(run, 'done')).toEqual({ step: 'done' });
    const sent = reportOf(run, 'sent');
    // discord.py's View lays the select out on a row of its own, after the buttons' row.
    const view = (emoji: Record<string, unknown>) => [
      {
        type: 1,
        components: [
          {
            type: 2,
            style: 3,
            disabled: false,
            label: 'Approve',
            custom_id: 'approve',
            emoji,
          },
          { type: 2, style: 5, disabled: false, label: 'Docs', url: 'https://parley.example/docs' },
        ],
      },
      {
        type: 1,
        components: [
          {
            type: 3,
            custom_id: 'colour',
            placeholder: 'Pick a colour',
            min_values: 1,
            max_values: 1,
            disabled: false,
            options: [
              { label: 'Red', value: 'red', description: 'Warm', default: false },
              { label: 'Blue', value: 'blue', default: true },
            ],
          },
        ],
      },
    ];
    // Stored as sent (a null emoji id dropped)...
    expect((await stored(sent.id as string)).components).toEqual(view({ name: '✅' }));
    // ... and read back by discord.py as its own (which writes a unicode emoji's id as null).
    expect(sent.components).toEqual(view({ id: null, name: '✅' }));
    expect(reportOf(run, 'fetched').components).toEqual(view({ id: null, name: '✅' }));
    const cleared = reportOf(run, 'cleared');
    expect(cleared.components).toEqual([]);
    expect((await stored(cleared.id as string)).components).toEqual([]);
    expect(run.code).toBe(0);
  }, 120_000);
});
