import { fixtureQuery } from '../helpers/fixtures';
import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { SnowflakeService } from '../../src/common/snowflake/snowflake.service';
import { serverPort } from '../helpers/ports';
import { createTestApp, http, isolatedDatabase } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient, type Frame } from '../helpers/gateway-client';
import WebSocket from 'ws';
import { ZSTD_AVAILABLE } from '../../src/modules/gateway/zstd-stream';

/** The status and body of an upgrade the server refused (rejects if it upgraded). */
function refusedUpgrade(target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(target);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('upgraded'));
    });
    ws.on('error', () => undefined);
  });
}
import { addMember, createGuild, createWebhook, type TestGuild } from '../helpers/guild-factories';
import { createApplication, installBot, type TestApplication } from '../helpers/oauth2-factories';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_MESSAGES = 1 << 9;
const MESSAGE_CONTENT = 1 << 15;

describe('gateway: the Discord v10 protocol over a raw WebSocket', () => {
  let app: ParleyApp;
  let url: string;
  let owner: TestUser;
  let outsider: TestUser;
  let g: TestGuild;
  let bot: TestApplication;
  const open: GatewayClient[] = [];

  const connect = async (query?: string, zlib = false, heartbeat = true) => {
    const c = await GatewayClient.connect(url, { query, zlib, heartbeat });
    open.push(c);
    return c;
  };
  /** Connects, identifies and waits for READY (and the GUILD_CREATEs that follow it). */
  const ready = async (token: string, extra: Record<string, unknown> = {}, guilds = 1) => {
    const c = await connect();
    await c.next((f) => f.op === 10);
    c.identify(token, extra);
    await c.dispatch('READY');
    if (guilds > 0) await c.next(() => c.dispatches('GUILD_CREATE').length >= guilds);
    return c;
  };
  const post = (user: TestUser, content: string, channelId = g.channelId) =>
    http(app)
      .post(`/v1/channels/${channelId}/messages`)
      .set('Authorization', user.token)
      .send({ content });

  // A database of its own: its events are numbered by its own relay, not by whichever instance
  // of the suites running beside it holds the shared database's relay lock (and may be busy).
  let db: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    const port = await serverPort();
    db = await isolatedDatabase();
    app = await createTestApp({
      env: {
        DATABASE_URL: db.url,
        GATEWAY_URL: `ws://127.0.0.1:${port}/gateway`,
        GATEWAY_HEARTBEAT_INTERVAL_MS: '1000',
      },
    });
    await app.listen(port, '127.0.0.1');
    url = `ws://127.0.0.1:${port}/gateway`;
    [owner, outsider] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, owner.token);
    bot = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.ws.terminate();
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  describe('REST', () => {
    it('tells anyone where the gateway is, and bots their session start limit', async () => {
      const pub = await http(app).get('/v1/gateway');
      expect(pub.status).toBe(200);
      expect(pub.body).toEqual({ url });
      const anonymous = await http(app).get('/v1/gateway/bot');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('UNAUTHORIZED');
      const user = await http(app).get('/v1/gateway/bot').set('Authorization', owner.token);
      expect(user.status).toBe(403);
      const fresh = await createApplication(app, owner);
      const res = await http(app)
        .get('/v1/gateway/bot')
        .set('Authorization', `Bot ${fresh.botToken}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        url,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
      // An identify counts.
      const c = await ready(fresh.botToken, { intents: GUILDS }, 0);
      c.close();
      const after = await http(app)
        .get('/v1/gateway/bot')
        .set('Authorization', `Bot ${fresh.botToken}`);
      expect(after.body.session_start_limit).toMatchObject({ total: 1000, remaining: 999 });
      expect(after.body.session_start_limit.reset_after).toBeGreaterThan(86_000_000);
      // The discovery document lists it.
      const discovery = await http(app).get('/v1/.well-known/service');
      expect(JSON.parse(discovery.text).endpoints.gateway).toBe(url);
    });

    it('refuses a second identify within 5 s (max_concurrency 1) with op 9', async () => {
      const fresh = await createApplication(app, owner);
      await ready(fresh.botToken, { intents: GUILDS }, 0);
      const second = await connect();
      await second.next((f) => f.op === 10);
      second.identify(fresh.botToken, { intents: GUILDS });
      const invalid = await second.next((f) => f.op === 9);
      expect(invalid.d).toBe(false);
    });
  });

  describe('connection', () => {
    it('says Hello with the heartbeat interval and acknowledges heartbeats', async () => {
      const c = await connect();
      const hello = await c.next((f) => f.op === 10);
      expect(hello).toEqual({ op: 10, d: { heartbeat_interval: 1000 }, s: null, t: null });
      c.send({ op: 1, d: null });
      expect(await c.next((f) => f.op === 11)).toEqual({ op: 11, d: null, s: null, t: null });
    });

    it('closes 4009 when heartbeats stop', async () => {
      const c = await connect(undefined, false, false);
      await c.next((f) => f.op === 10);
      expect(await c.closedWithin(6_000)).toEqual({ code: 4009, reason: 'Session timed out.' });
    });

    it('refuses other paths, closes 4012 for an unknown version, refuses ETF with a 400 that says why', async () => {
      await expect(GatewayClient.connect(url.replace('/gateway', '/elsewhere'))).rejects.toThrow(
        'upgrade refused: 404',
      );
      const v8 = await connect('v=8&encoding=json');
      expect(await v8.closedWithin()).toEqual({ code: 4012, reason: 'Invalid API version.' });
      // Not a close code after Hello (4002 is one clients reconnect on, forever): no upgrade.
      const etf = await refusedUpgrade(`${url}?v=10&encoding=etf`);
      expect(etf).toEqual({
        status: 400,
        body: 'encoding=etf is not supported: use encoding=json\n',
      });
      for (const v of ['9', '1']) {
        const ok = await connect(`v=${v}&encoding=json`);
        expect((await ok.next((f) => f.op === 10)).d.heartbeat_interval).toBe(1000);
      }
    });

    it('answers a compression it does not offer with text frames, and upgrades /gateway/ too', async () => {
      // The client parses only text frames here: a binary frame would fail it.
      const other = await connect('v=10&encoding=json&compress=brotli-stream');
      expect((await other.next((f) => f.op === 10)).d.heartbeat_interval).toBe(1000);
      other.send({ op: 1, d: null });
      expect((await other.next((f) => f.op === 11)).op).toBe(11);
      const slash = await GatewayClient.connect(`${url}/`, { query: 'v=10&encoding=json' });
      expect((await slash.next((f) => f.op === 10)).op).toBe(10);
      slash.close();
    });

    it('zstd-stream: one zstd stream where the runtime has zstd (Node 24), text frames where not (Node 20)', async () => {
      const query = 'v=10&encoding=json&compress=zstd-stream';
      const c = await GatewayClient.connect(url, { query, zstd: ZSTD_AVAILABLE });
      open.push(c);
      expect((await c.next((f) => f.op === 10)).d.heartbeat_interval).toBe(1000);
      c.identify(owner.token);
      await c.dispatch('READY');
      await c.dispatch('GUILD_CREATE');
      const posted = await post(owner, 'compressed');
      const event = await c.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === posted.body.id);
      expect(event.d.content).toBe('compressed');
      // Every message was binary (zstd) or every one text: never a mix.
      expect(c.binary.length > 0).toBe(ZSTD_AVAILABLE);
      if (ZSTD_AVAILABLE) expect(c.binary.length).toBe(c.frames.length);
    });

    it.each([
      ['not JSON', '{"op":', 4002, 'Decode error.'],
      [
        'a frame over 4096 bytes',
        JSON.stringify({ op: 1, d: 'x'.repeat(4100) }),
        4002,
        'Decode error.',
      ],
      ['JSON without an op', '{"d":1}', 4002, 'Decode error.'],
      ['an unknown opcode', '{"op":99,"d":null}', 4001, 'Unknown opcode.'],
      ['a server opcode', '{"op":10,"d":null}', 4001, 'Unknown opcode.'],
      ['a presence update before identify', '{"op":3,"d":{}}', 4003, 'Not authenticated.'],
    ])('closes on %s', async (_name, payload, code, reason) => {
      const c = await connect();
      await c.next((f) => f.op === 10);
      c.send(payload);
      expect(await c.closedWithin()).toEqual({ code, reason });
    });

    it('closes 4002 on a binary frame and 4008 beyond 120 frames a minute', async () => {
      const bin = await connect();
      await bin.next((f) => f.op === 10);
      bin.ws.send(Buffer.from('{"op":1,"d":null}'), { binary: true });
      expect((await bin.closedWithin()).code).toBe(4002);
      const flood = await connect(undefined, false, false);
      await flood.next((f) => f.op === 10);
      for (let i = 0; i < 121; i++) flood.send({ op: 1, d: null });
      expect(await flood.closedWithin()).toEqual({ code: 4008, reason: 'Rate limited.' });
      expect(flood.frames.filter((f) => f.op === 11)).toHaveLength(120);
    });

    it('speaks zlib-stream: one deflate context, every message ending in 00 00 ff ff', async () => {
      const c = await connect('v=10&encoding=json&compress=zlib-stream', true);
      await c.next((f) => f.op === 10);
      c.identify(owner.token);
      const readyFrame = await c.dispatch('READY');
      expect(readyFrame.d.user.id).toBe(owner.userId);
      await c.dispatch('GUILD_CREATE');
      expect(c.binary.length).toBeGreaterThanOrEqual(3);
      for (const b of c.binary) expect(b.subarray(-4).toString('hex')).toBe('0000ffff');
    });
  });

  describe('identify', () => {
    it('closes 4004 for a bad token and 4005 for a second identify', async () => {
      const bad = await connect();
      await bad.next((f) => f.op === 10);
      bad.identify('not-a-token');
      expect(await bad.closedWithin()).toEqual({ code: 4004, reason: 'Authentication failed.' });
      const twice = await ready(owner.token);
      twice.identify(owner.token);
      expect(await twice.closedWithin()).toEqual({ code: 4005, reason: 'Already authenticated.' });
    });

    it('closes 4010 for a bad shard, 4013 for unknown intents, 4014 for privileged ones not enabled', async () => {
      const shard = await connect();
      await shard.next((f) => f.op === 10);
      shard.identify(bot.botToken, { intents: GUILDS, shard: [2, 1] });
      expect(await shard.closedWithin()).toEqual({ code: 4010, reason: 'Invalid shard.' });
      const unknown = await connect();
      await unknown.next((f) => f.op === 10);
      unknown.identify(bot.botToken, { intents: 1 << 30 });
      expect(await unknown.closedWithin()).toEqual({ code: 4013, reason: 'Invalid intent(s).' });
      const missing = await connect();
      await missing.next((f) => f.op === 10);
      missing.identify(bot.botToken);
      expect((await missing.closedWithin()).code).toBe(4013);
      for (const intent of [MESSAGE_CONTENT, GUILD_MEMBERS]) {
        const privileged = await connect();
        await privileged.next((f) => f.op === 10);
        privileged.identify(bot.botToken, { intents: GUILDS | intent });
        expect(await privileged.closedWithin()).toEqual({
          code: 4014,
          reason: 'Disallowed intent(s).',
        });
      }
    });

    it('closes 4011 beyond 2,500 guilds unless sharded, and honours shard [id, n]', async () => {
      const many = await registerUser(app);
      const snowflakes = app.get(SnowflakeService);
      const ids = Array.from({ length: 2_501 }, () => snowflakes.next());
      const db = app.get(DataSource);
      // 2,501 guilds at once: a fixture (no route makes guilds in bulk).
      await fixtureQuery(
        db,
        `INSERT INTO guilds (id, name, owner_id) SELECT g, 'many', $2 FROM unnest($1::bigint[]) g`,
        [ids, many.userId],
      );
      await fixtureQuery(
        db,
        `INSERT INTO guild_members (guild_id, user_id) SELECT g, $2 FROM unnest($1::bigint[]) g`,
        [ids, many.userId],
      );
      const unsharded = await connect();
      await unsharded.next((f) => f.op === 10);
      unsharded.identify(many.token);
      expect(await unsharded.closedWithin(15_000)).toEqual({
        code: 4011,
        reason: 'Sharding required.',
      });
      const shard = await connect();
      await shard.next((f) => f.op === 10);
      shard.identify(many.token, { shard: [1, 2] });
      const readyFrame = await shard.dispatch('READY', 15_000);
      const expected = ids.filter((id) => Number((BigInt(id) >> 22n) % 2n) === 1).sort();
      expect(readyFrame.d.shard).toEqual([1, 2]);
      expect(readyFrame.d.guilds.map((gd: { id: string }) => gd.id).sort()).toEqual(expected);
    }, 60_000);

    it('sends a user READY and a GUILD_CREATE per guild', async () => {
      const c = await ready(owner.token);
      const readyFrame = c.dispatches('READY')[0];
      expect(readyFrame.s).toBe(1);
      expect(readyFrame.d).toMatchObject({
        v: 10,
        user: { id: owner.userId, username: owner.username, bot: false },
        guilds: [{ id: g.guildId, unavailable: true }],
        session_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        resume_gateway_url: url,
        shard: [0, 1],
      });
      expect(readyFrame.d.application).toBeUndefined();
      const create = c.dispatches('GUILD_CREATE')[0];
      expect(create.s).toBe(2);
      expect(create.d).toMatchObject({
        id: g.guildId,
        unavailable: false,
        owner_id: owner.userId,
        member_count: 2,
        channels: [{ id: g.channelId, name: 'general', type: 0, guild_id: g.guildId }],
        roles: expect.arrayContaining([
          expect.objectContaining({
            id: g.guildId,
            name: '@everyone',
            permissions: expect.any(String),
          }),
        ]),
        members: expect.arrayContaining([
          expect.objectContaining({ user: expect.objectContaining({ id: owner.userId }) }),
        ]),
      });
    });

    it('sends a bot READY with its application; a bot token may carry the Bot prefix', async () => {
      await http(app)
        .patch(`/v1/oauth2/applications/${bot.id}`)
        .set('Authorization', owner.token)
        .send({ flags: 1 << 19 })
        .expect(200);
      const c = await ready(`Bot ${bot.botToken}`, { intents: GUILDS | MESSAGE_CONTENT });
      expect(c.dispatches('READY')[0].d).toMatchObject({
        user: { id: bot.botUserId, bot: true },
        application: { id: bot.id, flags: 1 << 19 },
        guilds: [{ id: g.guildId, unavailable: true }],
      });
      await http(app)
        .patch(`/v1/oauth2/applications/${bot.id}`)
        .set('Authorization', owner.token)
        .send({ flags: 0 })
        .expect(200);
    });

    it('refuses application flags other than the two gateway intents', async () => {
      const res = await http(app)
        .patch(`/v1/oauth2/applications/${bot.id}`)
        .set('Authorization', owner.token)
        .send({ flags: 1 << 12 });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ path: 'flags', code: 'BASE_TYPE_CHOICES' }),
      ]);
    });
  });

  describe('events', () => {
    it('delivers messages to members who see the channel, and nothing to outsiders', async () => {
      const member = await registerUser(app);
      await addMember(app, g.guildId, member.userId);
      const [inGuild, out] = await Promise.all([ready(member.token), ready(outsider.token, {}, 0)]);
      const posted = await post(owner, 'hello members');
      expect(posted.status).toBe(201);
      const event = await inGuild.dispatch('MESSAGE_CREATE');
      expect(event.d).toEqual({ ...posted.body, guild_id: g.guildId });
      const numbered = inGuild.dispatches().filter((f) => f.s !== null);
      expect(event.s).toBe((numbered.at(-2)?.s ?? 0) + 1);
      const hook = await createWebhook(app, owner.token, g.channelId);
      await http(app)
        .post(`/v1/webhooks/${hook.id}/${hook.token}`)
        .send({ content: 'from a hook' })
        .expect(204);
      const viaHook = await inGuild.next(
        (f) => f.t === 'MESSAGE_CREATE' && f.d.webhook_id === hook.id,
      );
      expect(viaHook.d).toMatchObject({
        content: 'from a hook',
        author: { id: hook.id, bot: true },
        guild_id: g.guildId,
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(out.dispatches().map((f) => f.t)).toEqual(['READY']);
    });

    it('honours intents: no GUILD_MESSAGES, no messages; no MESSAGE_CONTENT, no content unless mentioned', async () => {
      const [quiet, reader] = await Promise.all([
        createApplication(app, owner),
        createApplication(app, owner),
      ]);
      await installBot(app, owner, quiet, g.guildId);
      await installBot(app, owner, reader, g.guildId);
      const [noMessages, noContent] = await Promise.all([
        ready(quiet.botToken, { intents: GUILDS }),
        ready(reader.botToken, { intents: GUILDS | GUILD_MESSAGES }),
      ]);
      const plain = await post(owner, 'secret plans');
      const mention = await post(owner, `hey <@${reader.botUserId}>`);
      const first = await noContent.next(
        (f) => f.t === 'MESSAGE_CREATE' && f.d.id === plain.body.id,
      );
      expect(first.d).toMatchObject({ content: '', embeds: [], attachments: [], components: [] });
      const second = await noContent.next(
        (f) => f.t === 'MESSAGE_CREATE' && f.d.id === mention.body.id,
      );
      expect(second.d.content).toBe(`hey <@${reader.botUserId}>`);
      expect(noMessages.dispatches('MESSAGE_CREATE')).toEqual([]);
    });

    it('sends GUILD_CREATE when the user joins a guild and GUILD_DELETE when removed', async () => {
      const joiner = await registerUser(app);
      const c = await ready(joiner.token, {}, 0);
      const channel = await http(app)
        .post(`/v1/guilds/${g.guildId}/channels`)
        .set('Authorization', owner.token)
        .send({ name: 'before joining' });
      expect(channel.status).toBe(201);
      await addMember(app, g.guildId, joiner.userId);
      const created = await c.dispatch('GUILD_CREATE');
      expect(created.d.id).toBe(g.guildId);
      expect(created.d.channels.map((ch: { id: string }) => ch.id)).toContain(channel.body.id);
      const posted = await post(owner, 'welcome');
      expect((await c.dispatch('MESSAGE_CREATE')).d.id).toBe(posted.body.id);
      const removed = await http(app)
        .delete(`/v1/guilds/${g.guildId}/members/${joiner.userId}`)
        .set('Authorization', owner.token);
      expect(removed.status).toBe(204);
      expect((await c.dispatch('GUILD_DELETE')).d).toEqual({ id: g.guildId });
      await post(owner, 'after leaving');
      await new Promise((r) => setTimeout(r, 300));
      expect(c.dispatches('MESSAGE_CREATE')).toHaveLength(1);
    });
  });

  describe('guild, channel and member events', () => {
    it('sends GUILD_UPDATE, CHANNEL_CREATE, MESSAGE_UPDATE and MESSAGE_DELETE to members', async () => {
      const c = await ready(owner.token);
      const renamed = await http(app)
        .patch(`/v1/guilds/${g.guildId}`)
        .set('Authorization', owner.token)
        .send({ name: 'Renamed guild' });
      expect(renamed.status).toBe(200);
      const update = await c.dispatch('GUILD_UPDATE');
      expect(update.d).toMatchObject({
        id: g.guildId,
        name: 'Renamed guild',
        owner_id: owner.userId,
      });
      const channel = await http(app)
        .post(`/v1/guilds/${g.guildId}/channels`)
        .set('Authorization', owner.token)
        .send({ name: 'announcements' });
      const created = await c.dispatch('CHANNEL_CREATE');
      expect(created.d).toMatchObject({
        id: channel.body.id,
        guild_id: g.guildId,
        name: 'announcements',
        type: 0,
        permission_overwrites: [],
      });
      const posted = await post(owner, 'first');
      const url = `/v1/channels/${g.channelId}/messages/${posted.body.id}`;
      await http(app).patch(url).set('Authorization', owner.token).send({ content: 'second' });
      const edited = await c.dispatch('MESSAGE_UPDATE');
      expect(edited.d).toMatchObject({
        id: posted.body.id,
        content: 'second',
        guild_id: g.guildId,
      });
      expect(edited.d.edited_timestamp).toEqual(expect.any(String));
      await http(app).delete(url).set('Authorization', owner.token).expect(204);
      expect((await c.dispatch('MESSAGE_DELETE')).d).toEqual({
        id: posted.body.id,
        channel_id: g.channelId,
        guild_id: g.guildId,
      });
    });

    it('sends GUILD_MEMBER_ADD/REMOVE to a bot with GUILD_MEMBERS (enabled by its owner), not without', async () => {
      const [watcher, blind] = await Promise.all([
        createApplication(app, owner),
        createApplication(app, owner),
      ]);
      await http(app)
        .patch(`/v1/oauth2/applications/${watcher.id}`)
        .set('Authorization', owner.token)
        .send({ flags: 1 << 15 })
        .expect(200);
      await installBot(app, owner, watcher, g.guildId);
      await installBot(app, owner, blind, g.guildId);
      const [withMembers, without] = await Promise.all([
        ready(watcher.botToken, { intents: GUILDS | GUILD_MEMBERS }),
        ready(blind.botToken, { intents: GUILDS }),
      ]);
      // With GUILD_MEMBERS, GUILD_CREATE lists the members (a small guild).
      const members = withMembers.dispatches('GUILD_CREATE')[0].d.members as Array<{
        user: { id: string };
      }>;
      expect(members.map((m) => m.user.id)).toEqual(
        expect.arrayContaining([owner.userId, watcher.botUserId]),
      );
      expect(without.dispatches('GUILD_CREATE')[0].d.members).toHaveLength(1);
      const joiner = await registerUser(app);
      await addMember(app, g.guildId, joiner.userId);
      const added = await withMembers.dispatch('GUILD_MEMBER_ADD');
      expect(added.d).toMatchObject({
        guild_id: g.guildId,
        user: { id: joiner.userId },
        roles: [],
      });
      await http(app)
        .delete(`/v1/guilds/${g.guildId}/members/${joiner.userId}`)
        .set('Authorization', owner.token)
        .expect(204);
      const removed = await withMembers.dispatch('GUILD_MEMBER_REMOVE');
      expect(removed.d).toEqual({
        guild_id: g.guildId,
        user: expect.objectContaining({ id: joiner.userId }),
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(without.dispatches('GUILD_MEMBER_ADD')).toEqual([]);
      expect(without.dispatches('GUILD_MEMBER_REMOVE')).toEqual([]);
    });
  });

  describe('resume', () => {
    it('replays what was missed with consecutive seqs, then RESUMED', async () => {
      const c = await ready(owner.token);
      const sessionId = c.dispatches('READY')[0].d.session_id as string;
      const lastSeq = c.lastSeq!;
      c.ws.terminate();
      await c.closed;
      const missed = [await post(owner, 'missed one'), await post(owner, 'missed two')];
      const again = await connect();
      await again.next((f) => f.op === 10);
      again.send({ op: 6, d: { token: owner.token, session_id: sessionId, seq: lastSeq } });
      await again.dispatch('RESUMED');
      const replayed = again.dispatches();
      expect(replayed.map((f) => f.t)).toEqual(['MESSAGE_CREATE', 'MESSAGE_CREATE', 'RESUMED']);
      // RESUMED is not an event: it repeats the last number (the next event takes lastSeq + 3).
      expect(replayed.map((f) => f.s)).toEqual([lastSeq + 1, lastSeq + 2, lastSeq + 2]);
      expect(replayed.slice(0, 2).map((f: Frame) => f.d.id)).toEqual(missed.map((m) => m.body.id));
    });

    it('answers op 9 for an unknown session and closes 4007 for a seq from the future', async () => {
      const unknown = await connect();
      await unknown.next((f) => f.op === 10);
      unknown.send({ op: 6, d: { token: owner.token, session_id: 'f'.repeat(32), seq: 1 } });
      expect((await unknown.next((f) => f.op === 9)).d).toBe(false);
      const c = await ready(owner.token);
      const sessionId = c.dispatches('READY')[0].d.session_id as string;
      c.ws.terminate();
      const future = await connect();
      await future.next((f) => f.op === 10);
      future.send({ op: 6, d: { token: owner.token, session_id: sessionId, seq: 999 } });
      expect(await future.closedWithin()).toEqual({ code: 4007, reason: 'Invalid seq.' });
    });

    it('ends the session when the client closes with 1000', async () => {
      const c = await ready(owner.token);
      const sessionId = c.dispatches('READY')[0].d.session_id as string;
      c.close(1000);
      await c.closed;
      const again = await connect();
      await again.next((f) => f.op === 10);
      again.send({ op: 6, d: { token: owner.token, session_id: sessionId, seq: 1 } });
      expect((await again.next((f) => f.op === 9)).d).toBe(false);
    });
  });

  describe('revocation', () => {
    it('closes 4004 within a second when the session logs out or the bot token is reset', async () => {
      const user = await registerUser(app);
      const c = await ready(user.token, {}, 0);
      const logout = await http(app).post('/v1/auth/logout').set('Authorization', user.token);
      expect(logout.status).toBe(204);
      expect((await c.closedWithin(1_500)).code).toBe(4004);

      const client = await createApplication(app, owner);
      const b = await ready(client.botToken, { intents: GUILDS }, 0);
      const reset = await http(app)
        .post(`/v1/oauth2/applications/${client.id}/bot/reset-token`)
        .set('Authorization', owner.token)
        .send({});
      expect(reset.status).toBe(200);
      expect((await b.closedWithin(1_500)).code).toBe(4004);
    });
  });
});
