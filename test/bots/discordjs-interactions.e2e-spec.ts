import {
  ActionRowBuilder,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ButtonBuilder,
  ButtonStyle,
  type Client,
  ComponentType,
  Events,
  GatewayIntentBits,
  type Interaction,
  MessageFlags,
  ModalBuilder,
  StringSelectMenuBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { http } from '../helpers/app';
import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { loginDiscordJs } from '../helpers/discordjs';
import { GatewayClient, type Frame } from '../helpers/gateway-client';

/**
 * Slash commands, buttons, selects, modals and autocomplete with discord.js 14, unmodified: the
 * bot registers its commands and answers on one instance (REST) with its gateway session on the
 * other; the member invokes through `POST /v1/interactions` on the REST instance and sees every
 * answer on their own session on the gateway instance.
 */
describe('bots: discord.js interactions across two instances', () => {
  let setup: BotGuild;
  let client: Client;
  let member: GatewayClient;
  let commands: Map<string, { id: string; type: number }>;
  const handlers = new Map<string, (i: Interaction) => Promise<void>>();
  let nonce = 0;

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    client = await loginDiscordJs(setup.restPort, setup.application.botToken, [
      GatewayIntentBits.Guilds,
    ]);
    client.on(Events.InteractionCreate, (i) => {
      const key =
        i.isChatInputCommand() || i.isContextMenuCommand() || i.isAutocomplete()
          ? i.commandName
          : null;
      const handler = key ? handlers.get(key) : undefined;
      if (handler) void handler(i).catch((err) => console.error(err));
    });
    await client.application!.commands.set([{ name: 'ping', description: 'Global ping' }]);
    const guild = client.guilds.cache.get(setup.g.guildId)!;
    const set = await guild.commands.set([
      {
        name: 'echo',
        description: 'Echo text',
        options: [
          {
            name: 'text',
            description: 'What to say',
            type: ApplicationCommandOptionType.String,
            required: true,
          },
        ],
      },
      { name: 'later', description: 'Deferred answer' },
      { name: 'secret', description: 'Ephemeral answer' },
      { name: 'buttons', description: 'A button' },
      { name: 'menu', description: 'A select' },
      { name: 'ask', description: 'A modal' },
      { name: 'silent', description: 'Never answered' },
      {
        name: 'fruit',
        description: 'Autocomplete',
        options: [
          {
            name: 'name',
            description: 'Fruit',
            type: ApplicationCommandOptionType.String,
            required: true,
            autocomplete: true,
          },
        ],
      },
      { name: 'Who is this', type: ApplicationCommandType.User },
    ]);
    commands = new Map(set.map((c) => [c.name, { id: c.id, type: c.type }]));
    member = await GatewayClient.ready(
      `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      setup.member.token,
    );
  });

  afterAll(async () => {
    member?.close();
    await client?.destroy();
    await setup?.close();
  });

  /** The member's `POST /v1/interactions` on the REST instance, in this guild and channel. */
  const interact = (body: Record<string, unknown>) =>
    http(setup.rest)
      .post('/v1/interactions')
      .set('Authorization', setup.member.token)
      .send({
        application_id: setup.application.id,
        guild_id: setup.g.guildId,
        channel_id: setup.g.channelId,
        ...body,
      });

  /** The member invokes on the REST instance; resolves with the interaction's nonce. */
  async function invoke(name: string, extra: Record<string, unknown> = {}): Promise<string> {
    const command = commands.get(name)!;
    const n = String(++nonce);
    const res = await interact({
      type: 2,
      nonce: n,
      data: { id: command.id, name, type: command.type, ...extra },
    });
    expect(res.status).toBe(204);
    return n;
  }

  const from = () => member.frames.length;
  const success = (n: string, at: number) =>
    member.next((f) => f.t === 'INTERACTION_SUCCESS' && f.d.nonce === n, 5_000, at);
  const message = (t: string, match: (d: any) => boolean, at: number): Promise<Frame> =>
    member.next((f) => f.t === t && match(f.d), 5_000, at);

  it('commands registered through discord.js are stored (global and guild)', async () => {
    const global = await client.application!.commands.fetch();
    expect([...global.values()].map((c) => c.name)).toEqual(['ping']);
    expect(commands.size).toBe(9);
  });

  it('reply: the answer is a type-20 message with interaction metadata; the user gets INTERACTION_SUCCESS', async () => {
    handlers.set('echo', async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.reply(`echo: ${i.options.getString('text', true)}`);
    });
    const at = from();
    const n = await invoke('echo', { options: [{ name: 'text', type: 3, value: 'hello' }] });
    const created = await message('MESSAGE_CREATE', (d) => d.content === 'echo: hello', at);
    expect(created.d).toMatchObject({
      type: 20,
      application_id: setup.application.id,
      webhook_id: setup.application.id,
      author: { id: setup.application.botUserId, bot: true },
      interaction_metadata: { type: 2, name: 'echo', user: { id: setup.member.userId } },
      interaction: { type: 2, name: 'echo', user: { id: setup.member.userId } },
    });
    const ok = await success(n, at);
    expect(ok.d.id).toBe(created.d.interaction_metadata.id);
    expect(member.frames.slice(at).some((f) => f.t === 'INTERACTION_FAILURE')).toBe(false);
  });

  it('deferReply + editReply fills in the loading placeholder; followUp posts another message', async () => {
    handlers.set('later', async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply();
      await i.editReply('done later');
      await i.followUp('and one more');
    });
    const at = from();
    await invoke('later');
    const placeholder = await message('MESSAGE_CREATE', (d) => (d.flags & 128) === 128, at);
    const filled = await message('MESSAGE_UPDATE', (d) => d.id === placeholder.d.id, at);
    expect(filled.d).toMatchObject({ content: 'done later', flags: 0, edited_timestamp: null });
    const follow = await message('MESSAGE_CREATE', (d) => d.content === 'and one more', at);
    expect(follow.d.interaction_metadata.original_response_message_id).toBe(placeholder.d.id);
  });

  it('an ephemeral reply reaches the invoking user only and is never in the channel history', async () => {
    handlers.set('secret', async (i) => {
      if (!i.isRepliable()) return;
      await i.reply({ content: 'for your eyes', flags: MessageFlags.Ephemeral });
    });
    const at = from();
    await invoke('secret');
    const created = await message('MESSAGE_CREATE', (d) => d.content === 'for your eyes', at);
    expect(created.d.flags & 64).toBe(64);
    const history = await http(setup.rest)
      .get(`/v1/channels/${setup.g.channelId}/messages`)
      .set('Authorization', setup.owner.token);
    expect(history.status).toBe(200);
    expect(history.body.some((m: { content: string }) => m.content === 'for your eyes')).toBe(
      false,
    );
  });

  it('a button: awaitMessageComponent, then update() edits the message', async () => {
    const clicked = new Promise<string>((resolve) => {
      handlers.set('buttons', async (i) => {
        if (!i.isChatInputCommand()) return;
        const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId('ok').setLabel('OK').setStyle(ButtonStyle.Primary),
        );
        const response = await i.reply({ content: 'press', components: [row], withResponse: true });
        const press = await response.resource!.message!.awaitMessageComponent({
          componentType: ComponentType.Button,
          time: 10_000,
        });
        await press.update({ content: 'pressed', components: [] });
        resolve(press.user.id);
      });
    });
    const at = from();
    await invoke('buttons');
    const shown = await message('MESSAGE_CREATE', (d) => d.content === 'press', at);
    expect(shown.d.components[0].components[0]).toMatchObject({ type: 2, custom_id: 'ok' });
    const res = await interact({
      type: 3,
      message_id: shown.d.id,
      nonce: 'click',
      data: { component_type: 2, custom_id: 'ok' },
    });
    expect(res.status).toBe(204);
    expect(await clicked).toBe(setup.member.userId);
    const updated = await message('MESSAGE_UPDATE', (d) => d.id === shown.d.id, at);
    expect(updated.d).toMatchObject({ content: 'pressed', components: [] });
    await success('click', at);
  });

  it('a string select: the values chosen reach the bot', async () => {
    const chosen = new Promise<string[]>((resolve) => {
      handlers.set('menu', async (i) => {
        if (!i.isChatInputCommand()) return;
        const row = new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(
          new StringSelectMenuBuilder()
            .setCustomId('colour')
            .setMaxValues(2)
            .addOptions({ label: 'Red', value: 'red' }, { label: 'Blue', value: 'blue' }),
        );
        const response = await i.reply({ content: 'pick', components: [row], withResponse: true });
        const pick = await response.resource!.message!.awaitMessageComponent({
          componentType: ComponentType.StringSelect,
          time: 10_000,
        });
        await pick.deferUpdate();
        resolve(pick.values);
      });
    });
    const at = from();
    await invoke('menu');
    const shown = await message('MESSAGE_CREATE', (d) => d.content === 'pick', at);
    const bad = await selectPost(shown.d.id, ['green']);
    expect(bad.status).toBe(400);
    expect((await selectPost(shown.d.id, ['red', 'blue'])).status).toBe(204);
    expect(await chosen).toEqual(['red', 'blue']);
  });

  function selectPost(messageId: string, values: string[]) {
    return interact({
      type: 3,
      message_id: messageId,
      data: { component_type: 3, custom_id: 'colour', values },
    });
  }

  it('showModal + awaitModalSubmit: the user gets INTERACTION_MODAL_CREATE and submits it', async () => {
    const submitted = new Promise<string>((resolve) => {
      handlers.set('ask', async (i) => {
        if (!i.isChatInputCommand()) return;
        const modal = new ModalBuilder()
          .setCustomId('feedback')
          .setTitle('Feedback')
          .addComponents(
            new ActionRowBuilder<TextInputBuilder>().addComponents(
              new TextInputBuilder()
                .setCustomId('body')
                .setLabel('Say')
                .setStyle(TextInputStyle.Short),
            ),
          );
        await i.showModal(modal);
        const submit = await i.awaitModalSubmit({ time: 10_000 });
        await submit.reply(`thanks: ${submit.fields.getTextInputValue('body')}`);
        resolve(submit.customId);
      });
    });
    const at = from();
    await invoke('ask');
    const shown = await message('INTERACTION_MODAL_CREATE', () => true, at);
    expect(shown.d).toMatchObject({ custom_id: 'feedback', title: 'Feedback' });
    const res = await interact({
      type: 5,
      data: {
        id: shown.d.id,
        custom_id: 'feedback',
        components: [{ type: 1, components: [{ type: 4, custom_id: 'body', value: 'great' }] }],
      },
    });
    expect(res.status).toBe(204);
    expect(await submitted).toBe('feedback');
    await message('MESSAGE_CREATE', (d) => d.content === 'thanks: great', at);
  });

  it('autocomplete: respond() sends the choices to the user', async () => {
    handlers.set('fruit', async (i) => {
      if (!i.isAutocomplete()) return;
      const typed = i.options.getFocused();
      await i.respond(
        ['apple', 'apricot', 'banana']
          .filter((f) => f.startsWith(typed))
          .map((f) => ({ name: f, value: f })),
      );
    });
    const at = from();
    const command = commands.get('fruit')!;
    const res = await interact({
      type: 4,
      nonce: 'typing',
      data: {
        id: command.id,
        name: 'fruit',
        type: 1,
        options: [{ name: 'name', type: 3, value: 'ap', focused: true }],
      },
    });
    expect(res.status).toBe(204);
    const choices = await message('APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE', () => true, at);
    expect(choices.d).toMatchObject({
      nonce: 'typing',
      choices: [
        { name: 'apple', value: 'apple' },
        { name: 'apricot', value: 'apricot' },
      ],
    });
  });

  it('a user context-menu command resolves its target', async () => {
    handlers.set('Who is this', async (i) => {
      if (!i.isUserContextMenuCommand()) return;
      await i.reply(`that is ${i.targetUser.id}`);
    });
    const at = from();
    await invoke('Who is this', { target_id: setup.owner.userId });
    const created = await message(
      'MESSAGE_CREATE',
      (d) => d.content === `that is ${setup.owner.userId}`,
      at,
    );
    expect(created.d).toMatchObject({
      type: 23,
      interaction_metadata: { target_user: { id: setup.owner.userId } },
    });
  });

  it('a command nobody answers ends in INTERACTION_FAILURE after 3 s, and a late answer is 10062', async () => {
    let late: Promise<number> = Promise.resolve(0);
    handlers.set('silent', async (i) => {
      if (!i.isChatInputCommand()) return;
      late = new Promise((resolve) => {
        setTimeout(() => {
          http(setup.rest)
            .post(`/api/v10/interactions/${i.id}/${i.token}/callback`)
            .send({ type: 4, data: { content: 'too late' } })
            .then(
              (res) => resolve(res.body.code as number),
              () => resolve(-1),
            );
        }, 3_600);
      });
    });
    const at = from();
    const n = await invoke('silent');
    const failed = await member.next(
      (f) => f.t === 'INTERACTION_FAILURE' && f.d.nonce === n,
      6_000,
      at,
    );
    expect(failed.d.id).toMatch(/^\d+$/);
    expect(await late).toBe(10062);
    expect(
      member.frames.slice(at).some((f) => f.t === 'INTERACTION_SUCCESS' && f.d.nonce === n),
    ).toBe(false);
  });
});
