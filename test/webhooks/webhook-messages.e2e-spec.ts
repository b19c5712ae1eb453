import { AttachmentBuilder, DiscordAPIError, WebhookClient } from 'discord.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { AppConfig } from '../../src/config/app.config';
import { createTestApp, fetchLink, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import {
  createGuild,
  createWebhook,
  type TestGuild,
  type TestWebhook,
} from '../helpers/guild-factories';
import { createApplication, installBot } from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';

/** Attachment rows of a channel: id, message and filename. */
async function attachmentRows(
  app: ParleyApp,
  channelId: string,
): Promise<Array<{ id: string; message_id: string | null; filename: string }>> {
  return app.get(DataSource).query(
    // Files a message let go of are left out: the sweep deletes them whenever it gets to them.
    `SELECT id::text AS id, message_id::text AS message_id, filename FROM attachments
        WHERE channel_id = $1 AND NOT (message_id IS NULL AND expires_at IS NULL) ORDER BY id`,
    [channelId],
  );
}

/** Discord's webhook message routes for a webhook's own messages (and files on their edits). */
describe('webhooks: a webhook’s messages (GET/PATCH/DELETE /webhooks/{id}/{token}/messages/{id})', () => {
  let app: ParleyApp;
  let port: number;
  let owner: TestUser;
  let g: TestGuild;
  let hook: TestWebhook;
  let other: TestWebhook;
  let watcher: GatewayClient;

  beforeAll(async () => {
    port = await serverPort();
    app = await createTestApp({ env: { ATTACHMENT_MAX_BYTES: String(64 * 1024) } });
    await app.listen(port, '127.0.0.1');
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    hook = await createWebhook(app, owner.token, g.channelId, 'Deploys');
    other = await createWebhook(app, owner.token, g.channelId, 'Other');
    watcher = await GatewayClient.ready(`ws://127.0.0.1:${port}/gateway`, owner.token);
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    await app?.close();
  });

  const path = (w: TestWebhook, messageId: string, base = '/v1') =>
    `${base}/webhooks/${w.id}/${w.token}/messages/${messageId}`;

  /** Posts through the execute route; the message as it answers (wait=true). */
  async function execute(w: TestWebhook, body: object): Promise<Record<string, any>> {
    const res = await http(app).post(`/v1/webhooks/${w.id}/${w.token}?wait=true`).send(body);
    expect(res.status).toBe(200);
    return res.body as Record<string, any>;
  }

  it('gets the message it posted, on /v1 and Discord’s path', async () => {
    const posted = await execute(hook, { content: 'build #1 passed' });
    for (const base of ['/v1', '/api/v10']) {
      const res = await http(app).get(path(hook, posted.id, base));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: posted.id,
        channel_id: g.channelId,
        content: 'build #1 passed',
        webhook_id: hook.id,
        author: { id: hook.id, username: 'Deploys', bot: true },
        attachments: [],
        edited_timestamp: null,
      });
    }
  });

  it('edits content and embeds (MESSAGE_UPDATE), ignores components, sets and clears SUPPRESS_EMBEDS', async () => {
    const posted = await execute(hook, { content: 'deploying…' });
    const at = watcher.frames.length;
    const res = await http(app)
      .patch(path(hook, posted.id, '/api/v10'))
      .send({
        content: 'deployed',
        embeds: [{ title: 'v1.4.1', description: 'live' }],
        flags: 4 | 64,
        allowed_mentions: { parse: [] },
        components: [{ type: 1, components: [{ type: 2, style: 1, label: 'x', custom_id: 'x' }] }],
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: posted.id,
      content: 'deployed',
      embeds: [{ title: 'v1.4.1', description: 'live' }],
      components: [],
      flags: 4,
      webhook_id: hook.id,
    });
    expect(res.body.edited_timestamp).toEqual(expect.any(String));
    const event = await watcher.next(
      (f) => f.t === 'MESSAGE_UPDATE' && f.d.id === posted.id,
      5_000,
      at,
    );
    expect(event.d).toMatchObject({
      id: posted.id,
      guild_id: g.guildId,
      channel_id: g.channelId,
      content: 'deployed',
      author: { id: hook.id },
    });
    const cleared = await http(app).patch(path(hook, posted.id)).send({ flags: 0 });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ content: 'deployed', flags: 0 });
    // The message as everyone reads it.
    const read = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${posted.id}`)
      .set('Authorization', owner.token);
    expect(read.body).toMatchObject({ content: 'deployed', embeds: [{ title: 'v1.4.1' }] });
  });

  it('refuses an edit that leaves nothing to show (400 EMPTY_MESSAGE / 50006)', async () => {
    const posted = await execute(hook, { content: 'soon empty' });
    const v1 = await http(app).patch(path(hook, posted.id)).send({ content: '' });
    expect(v1.status).toBe(400);
    expect(v1.body).toMatchObject({ code: 'EMPTY_MESSAGE' });
    const v10 = await http(app)
      .patch(path(hook, posted.id, '/api/v10'))
      .send({ content: '' });
    expect(v10.status).toBe(400);
    expect(v10.body).toMatchObject({ code: 50006 });
    const bad = await http(app).patch(path(hook, posted.id)).send({ content: 7 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_FORM_BODY' });
  });

  it('deletes it: 204, MESSAGE_DELETE, then 404 UNKNOWN_MESSAGE (10008)', async () => {
    const posted = await execute(hook, { content: 'delete me' });
    const at = watcher.frames.length;
    const del = await http(app).delete(path(hook, posted.id));
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const event = await watcher.next(
      (f) => f.t === 'MESSAGE_DELETE' && f.d.id === posted.id,
      5_000,
      at,
    );
    expect(event.d).toEqual({ id: posted.id, channel_id: g.channelId, guild_id: g.guildId });
    const gone = await http(app).get(path(hook, posted.id, '/api/v10'));
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 10008 });
    const again = await http(app).delete(path(hook, posted.id));
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'UNKNOWN_MESSAGE' });
  });

  it('a wrong token or id is 404 UNKNOWN_WEBHOOK (10015), as on execute, and changes nothing', async () => {
    const posted = await execute(hook, { content: 'guarded' });
    const wrong = { ...hook, token: 'x'.repeat(64) };
    const calls = [
      http(app).get(path(wrong, posted.id)),
      http(app).patch(path(wrong, posted.id)).send({ content: 'hijacked' }),
      http(app).delete(path(wrong, posted.id)),
      http(app).get(path({ ...hook, token: 'short' }, posted.id)),
      http(app).get(path({ ...hook, id: '999999999' }, posted.id)),
      http(app)
        .patch(path(wrong, posted.id))
        .field('payload_json', JSON.stringify({ content: 'hijacked' }))
        .attach('files[0]', Buffer.from('nope'), 'nope.txt'),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'UNKNOWN_WEBHOOK' });
    }
    const v10 = await http(app).get(path(wrong, posted.id, '/api/v10'));
    expect(v10.status).toBe(404);
    expect(v10.body).toMatchObject({ code: 10015 });
    const still = await http(app).get(path(hook, posted.id));
    expect(still.body.content).toBe('guarded');
    // An interaction-shaped token that names no interaction is refused the same way.
    const fake = await http(app).get(
      path({ ...hook, token: `aW50ZXJhY3Rpb246${'A'.repeat(40)}` }, posted.id),
    );
    expect(fake.status).toBe(404);
    expect(fake.body).toMatchObject({ code: 'UNKNOWN_WEBHOOK' });
  });

  it('another webhook’s message, a user’s message and `@original` are 404 UNKNOWN_MESSAGE', async () => {
    const theirs = await execute(other, { content: 'not yours' });
    const user = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content: 'a person wrote this' });
    expect(user.status).toBe(201);
    for (const id of [
      theirs.id as string,
      user.body.id as string,
      '@original',
      'abc',
      '1'.repeat(20),
    ]) {
      const calls = [
        http(app).get(path(hook, id)),
        http(app).patch(path(hook, id)).send({ content: 'mine now' }),
        http(app).delete(path(hook, id)),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'UNKNOWN_MESSAGE' });
      }
    }
    const read = await http(app)
      .get(`/v1/channels/${g.channelId}/messages/${user.body.id}`)
      .set('Authorization', owner.token);
    expect(read.body.content).toBe('a person wrote this');
    expect((await http(app).get(path(other, theirs.id))).body.content).toBe('not yours');
  });

  it('once the webhook moved to another channel, the messages it left behind are not its to edit', async () => {
    const moving = await createWebhook(app, owner.token, g.channelId, 'Mover');
    const posted = await execute(moving, { content: 'before the move' });
    const channel = await http(app)
      .post(`/v1/guilds/${g.guildId}/channels`)
      .set('Authorization', owner.token)
      .send({ name: 'elsewhere' });
    expect(channel.status).toBe(201);
    const moved = await http(app)
      .patch(`/v1/webhooks/${moving.id}`)
      .set('Authorization', owner.token)
      .send({ channel_id: channel.body.id });
    expect(moved.status).toBe(200);
    const res = await http(app).patch(path(moving, posted.id)).send({ content: 'after' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'UNKNOWN_MESSAGE' });
  });

  it('multipart edits: adds files, then keeps one old attachment and adds a new file; the rest let go', async () => {
    const posted = await execute(hook, { content: 'logs follow' });
    const first = await http(app)
      .patch(path(hook, posted.id))
      .field('payload_json', JSON.stringify({ content: 'two logs' }))
      .attach('files[0]', Buffer.from('one\n'), 'one.txt')
      .attach('files[1]', Buffer.from('two\n'), 'two.txt');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      content: 'two logs',
      attachments: [
        { filename: 'one.txt', size: 4, content_type: 'text/plain; charset=utf-8' },
        { filename: 'two.txt', size: 4, content_type: 'text/plain; charset=utf-8' },
      ],
    });
    const [one, two] = first.body.attachments;
    expect(two.url).toMatch(
      new RegExp(`^http://parley.test/v1/attachments/${g.channelId}/${two.id}/two\\.txt\\?ex=`),
    );
    const at = watcher.frames.length;
    const second = await http(app)
      .patch(path(hook, posted.id, '/api/v10'))
      .field(
        'payload_json',
        JSON.stringify({
          attachments: [
            { id: two.id },
            { id: 0, description: 'the new one', filename: 'three.log' },
          ],
        }),
      )
      .attach('files[0]', Buffer.from('three\n'), 'three.txt');
    expect(second.status).toBe(200);
    expect(second.body.content).toBe('two logs');
    expect(second.body.attachments).toEqual([
      expect.objectContaining({ id: two.id, filename: 'two.txt' }),
      expect.objectContaining({
        id: expect.any(String),
        filename: 'three.log',
        description: 'the new one',
        size: 6,
      }),
    ]);
    const three = second.body.attachments[1];
    const event = await watcher.next(
      (f) =>
        f.t === 'MESSAGE_UPDATE' &&
        f.d.id === posted.id &&
        f.d.attachments.some((a: { id: string }) => a.id === three.id),
      5_000,
      at,
    );
    expect(event.d.attachments.map((a: { id: string }) => a.id)).toEqual([two.id, three.id]);
    // Rows: the kept and the new one are the message's; the dropped one is due for the sweep.
    const rows = await attachmentRows(app, g.channelId);
    // Let go of: no longer the message's (the sweep may have deleted it already).
    expect(rows.find((r) => r.id === one.id)).toBeUndefined();
    expect(rows.find((r) => r.id === two.id)).toMatchObject({ message_id: posted.id });
    expect(rows.find((r) => r.id === three.id)).toMatchObject({
      message_id: posted.id,
      filename: 'three.log',
    });
    const blob = (id: string) =>
      readFile(join(app.get(AppConfig).blobDir, 'attachments', g.channelId, id), 'utf8');
    expect(await blob(three.id)).toBe('three\n');
    // The link in the answer downloads the bytes.
    const download = await fetchLink(app, three.url as string);
    expect(download.status).toBe(200);
    expect((download.body as Buffer).toString('utf8')).toBe('three\n');
    // Deleting the message lets go of its files (the foreign key; the sweep deletes the blobs).
    expect((await http(app).delete(path(hook, posted.id))).status).toBe(204);
    const gone = await fetchLink(app, three.url as string);
    expect(gone.status).toBe(404);
    expect(JSON.parse((gone.body as Buffer).toString('utf8'))).toMatchObject({
      code: 'UNKNOWN_ATTACHMENT',
    });
    // No longer any message's: due for the sweep (which may have deleted them already).
    const after = await attachmentRows(app, g.channelId);
    expect(after.filter((r) => [two.id, three.id].includes(r.id))).toEqual([]);
  });

  it('multipart to a message that is not the webhook’s is refused before a byte is stored', async () => {
    const theirs = await execute(other, { content: 'not yours either' });
    const before = await attachmentRows(app, g.channelId);
    const res = await http(app)
      .patch(path(hook, theirs.id))
      .field('payload_json', JSON.stringify({ content: 'mine' }))
      .attach('files[0]', Buffer.from('sneaky'), 'sneaky.txt');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'UNKNOWN_MESSAGE' });
    expect(await attachmentRows(app, g.channelId)).toEqual(before);
    // A file over ATTACHMENT_MAX_BYTES: 413, nothing left behind, the message unchanged.
    const mine = await execute(hook, { content: 'small only' });
    const big = await http(app)
      .patch(path(hook, mine.id, '/api/v10'))
      .attach('files[0]', Buffer.alloc(64 * 1024 + 1, 1), 'big.bin');
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: 40005 });
    expect(await attachmentRows(app, g.channelId)).toEqual(before);
    expect((await http(app).get(path(hook, mine.id))).body.attachments).toEqual([]);
  });

  it('the same path serves an interaction’s token: `@original` read, edited (with a file), deleted', async () => {
    const bot = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
    const command = await http(app)
      .post(`/api/v10/applications/${bot.id}/guilds/${g.guildId}/commands`)
      .set('Authorization', `Bot ${bot.botToken}`)
      .send({ name: 'status', description: 'Shows the status' });
    expect(command.status).toBe(201);
    const session = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
    try {
      session.identify(`Bot ${bot.botToken}`, { intents: 1 });
      await session.dispatch('READY');
      const invoked = await http(app)
        .post('/v1/interactions')
        .set('Authorization', owner.token)
        .send({
          type: 2,
          application_id: bot.id,
          guild_id: g.guildId,
          channel_id: g.channelId,
          data: { id: command.body.id, name: 'status', type: 1 },
        });
      expect(invoked.status).toBe(204);
      const created = await session.next((f) => f.t === 'INTERACTION_CREATE', 5_000);
      const answered = await http(app)
        .post(`/api/v10/interactions/${created.d.id}/${created.d.token}/callback`)
        .send({ type: 4, data: { content: 'all green' } });
      expect(answered.status).toBe(204);
      const interaction = { ...hook, id: bot.id, token: created.d.token as string };
      const original = await http(app).get(path(interaction, '@original', '/api/v10'));
      expect(original.status).toBe(200);
      expect(original.body).toMatchObject({ content: 'all green', author: { id: bot.botUserId } });
      const withFile = await http(app)
        .patch(path(interaction, '@original', '/api/v10'))
        .field('payload_json', JSON.stringify({ content: 'with a file' }))
        .attach('files[0]', Buffer.from('log'), 'log.txt');
      expect(withFile.status).toBe(200);
      expect(withFile.body).toMatchObject({
        id: original.body.id,
        content: 'with a file',
        attachments: [expect.objectContaining({ filename: 'log.txt', size: 3 })],
      });
      const rows = await attachmentRows(app, g.channelId);
      expect(rows.find((r) => r.id === withFile.body.attachments[0].id)).toMatchObject({
        message_id: original.body.id,
      });
      const edited = await http(app)
        .patch(path(interaction, '@original'))
        .send({ content: 'still green' });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({
        id: original.body.id,
        content: 'still green',
        attachments: [expect.objectContaining({ filename: 'log.txt' })],
      });
      expect((await http(app).delete(path(interaction, '@original'))).status).toBe(204);
      const gone = await http(app).get(path(interaction, '@original'));
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ code: 'UNKNOWN_MESSAGE' });
      // The interaction's token reaches only its own messages, not the webhook's.
      const hooks = await execute(hook, { content: 'the webhook’s' });
      const foreign = await http(app).get(path(interaction, hooks.id));
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ code: 'UNKNOWN_MESSAGE' });
    } finally {
      session.close();
    }
  });

  it('discord.js WebhookClient: fetchMessage, editMessage with a file, deleteMessage', async () => {
    const client = new WebhookClient(
      { id: hook.id, token: hook.token },
      { rest: { api: `http://127.0.0.1:${port}/api` } },
    );
    try {
      const sent = await client.send({ content: 'from discord.js' });
      const fetched = await client.fetchMessage(sent.id);
      expect(fetched).toMatchObject({
        id: sent.id,
        content: 'from discord.js',
        webhook_id: hook.id,
      });
      const edited = await client.editMessage(sent.id, {
        content: 'with a report',
        files: [new AttachmentBuilder(Buffer.from('report body'), { name: 'report.txt' })],
      });
      expect(edited).toMatchObject({
        id: sent.id,
        content: 'with a report',
        attachments: [expect.objectContaining({ filename: 'report.txt', size: 11 })],
      });
      // discord.js keeps the attachments it is told to (here: none) and drops the rest.
      const stripped = await client.editMessage(sent.id, { content: 'no report', attachments: [] });
      expect(stripped).toMatchObject({ content: 'no report', attachments: [] });
      await client.deleteMessage(sent.id);
      const missing = await client.fetchMessage(sent.id).catch((err: unknown) => err);
      expect(missing).toBeInstanceOf(DiscordAPIError);
      expect((missing as DiscordAPIError).code).toBe(10008);
    } finally {
      client.destroy();
    }
  });
});
