import {
  AttachmentBuilder,
  type Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type TextChannel,
  WebhookClient,
} from 'discord.js';
import { fetchLink, http } from '../helpers/app';
import { botGuildOnTwoInstances, type BotGuild } from '../helpers/bot-guild';
import { loginDiscordJs } from '../helpers/discordjs';
import { GatewayClient } from '../helpers/gateway-client';
import { createWebhook } from '../helpers/guild-factories';

/** A 2×3 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR42mP8z8DwnwEIGBgYAAAv8gP9Zq7dWQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Files with discord.js 14, unmodified: `channel.send({ files })`, `WebhookClient.send({ files })`
 * and an interaction's `reply({ files })` post Discord's multipart form (`payload_json` +
 * `files[n]`) to one instance; a member sees each MESSAGE_CREATE on the other instance, and the
 * signed `url` in the event downloads the same bytes — from either instance.
 */
describe('bots: discord.js sends files', () => {
  let setup: BotGuild;
  let client: Client;
  let channel: TextChannel;
  let member: GatewayClient;

  beforeAll(async () => {
    setup = await botGuildOnTwoInstances();
    client = await loginDiscordJs(setup.restPort, setup.application.botToken, [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
    ]);
    channel = client.channels.cache.get(setup.g.channelId) as TextChannel;
    member = await GatewayClient.ready(
      `ws://127.0.0.1:${setup.gatewayPort}/gateway`,
      setup.member.token,
    );
  }, 60_000);

  afterAll(async () => {
    member?.close();
    await client?.destroy();
    await setup?.close();
  });

  /** The bytes behind an attachment's signed link, fetched from `instance` without credentials. */
  const download = async (url: string, instance = setup.gateway) => {
    const res = await fetchLink(instance, url);
    expect(res.status).toBe(200);
    return res.body as Buffer;
  };

  it('channel.send({ files }) posts the files; the event’s url downloads the same bytes', async () => {
    const report = Buffer.from('line 1\nline 2\n');
    const at = member.frames.length;
    const sent = await channel.send({
      content: 'nightly report',
      files: [
        new AttachmentBuilder(report, { name: 'report.txt', description: 'the report' }),
        new AttachmentBuilder(PNG, { name: 'chart.png' }),
      ],
    });
    const [txt, png] = [...sent.attachments.values()];
    expect(txt).toMatchObject({
      name: 'report.txt',
      description: 'the report',
      contentType: 'text/plain; charset=utf-8',
      size: report.length,
    });
    expect(png).toMatchObject({ name: 'chart.png', contentType: 'image/png', width: 2, height: 3 });
    const event = await member.next(
      (f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.id,
      5_000,
      at,
    );
    expect(event.d.attachments.map((a: { filename: string }) => a.filename)).toEqual([
      'report.txt',
      'chart.png',
    ]);
    expect(await download(event.d.attachments[0].url)).toEqual(report);
    expect(await download(event.d.attachments[1].url, setup.rest)).toEqual(PNG);
  });

  it('WebhookClient.send({ files }) posts through the webhook', async () => {
    const hook = await createWebhook(setup.rest, setup.owner.token, setup.g.channelId, 'CI');
    const webhook = new WebhookClient(
      { id: hook.id, token: hook.token },
      { rest: { api: `http://127.0.0.1:${setup.restPort}/api` } },
    );
    try {
      const log = Buffer.from('build #42 passed\n');
      const at = member.frames.length;
      const posted = await webhook.send({
        content: 'build log',
        files: [new AttachmentBuilder(log, { name: 'build.log' })],
      });
      expect(posted.attachments[0]).toMatchObject({ filename: 'build.log', size: log.length });
      const event = await member.next(
        (f) => f.t === 'MESSAGE_CREATE' && f.d.id === posted.id,
        5_000,
        at,
      );
      expect(event.d.webhook_id).toBe(hook.id);
      expect(await download(event.d.attachments[0].url)).toEqual(log);
    } finally {
      webhook.destroy();
    }
  });

  it('an interaction reply carries a file', async () => {
    const guild = client.guilds.cache.get(setup.g.guildId)!;
    const [command] = [
      ...(await guild.commands.set([{ name: 'export', description: 'A file' }])).values(),
    ];
    const csv = Buffer.from('id,name\n1,parley\n');
    const handler = (i: Interaction) => {
      if (!i.isChatInputCommand() || i.commandName !== 'export') return;
      void i.reply({
        content: 'here it is',
        files: [new AttachmentBuilder(csv, { name: 'export.csv' })],
      });
    };
    client.on(Events.InteractionCreate, handler);
    try {
      const at = member.frames.length;
      const res = await http(setup.rest)
        .post('/v1/interactions')
        .set('Authorization', setup.member.token)
        .send({
          type: 2,
          application_id: setup.application.id,
          guild_id: setup.g.guildId,
          channel_id: setup.g.channelId,
          nonce: 'export-1',
          data: { id: command.id, name: 'export', type: 1 },
        });
      expect(res.status).toBe(204);
      const event = await member.next(
        (f) => f.t === 'MESSAGE_CREATE' && f.d.content === 'here it is',
        5_000,
        at,
      );
      expect(event.d).toMatchObject({ type: 20, author: { id: setup.application.botUserId } });
      expect(event.d.attachments[0]).toMatchObject({ filename: 'export.csv', size: csv.length });
      expect(await download(event.d.attachments[0].url)).toEqual(csv);
    } finally {
      client.off(Events.InteractionCreate, handler);
    }
  });
});
