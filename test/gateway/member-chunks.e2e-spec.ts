import { DataSource } from 'typeorm';
import type { ParleyApp } from '../../src/app.setup';
import { SnowflakeService } from '../../src/common/snowflake/snowflake.service';
import { createTestApp } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { fixtureQuery } from '../helpers/fixtures';
import { GatewayClient, type Frame } from '../helpers/gateway-client';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import {
  createApplication,
  installBot,
  MEMBERS_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
/** Members written as fixtures (more than two chunks of 1,000). */
const SEEDED = 2_100;

/** Op 8 Request Guild Members → GUILD_MEMBERS_CHUNK, over a raw WebSocket (Discord's rules). */
describe('gateway: op 8 Request Guild Members', () => {
  let app: ParleyApp;
  let url: string;
  let owner: TestUser;
  let g: TestGuild;
  let other: TestGuild;
  let privileged: TestApplication;
  let plain: TestApplication;
  let seededIds: string[];
  const open: GatewayClient[] = [];

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    url = `ws://127.0.0.1:${port}/gateway`;
    owner = await registerUser(app);
    g = await createGuild(app, owner.token);
    other = await createGuild(app, owner.token);
    privileged = await createApplication(app, owner);
    plain = await createApplication(app, owner);
    await setApplicationFlags(app, owner, privileged, MEMBERS_INTENT_FLAG);
    await installBot(app, owner, privileged, g.guildId);
    await installBot(app, owner, plain, g.guildId);
    // Users and memberships no route makes in bulk this fast: written as fixtures.
    const snowflakes = app.get(SnowflakeService);
    seededIds = Array.from({ length: SEEDED }, () => snowflakes.next());
    const names = seededIds.map((_, i) => `chunk_${String(i).padStart(4, '0')}`);
    const db = app.get(DataSource);
    await fixtureQuery(
      db,
      `INSERT INTO users (id, username, discriminator)
       SELECT id, name, '0001' FROM unnest($1::bigint[], $2::text[]) AS s(id, name)`,
      [seededIds, names],
    );
    await fixtureQuery(
      db,
      `INSERT INTO guild_members (guild_id, user_id, roles, joined_at)
       SELECT $1, id, '{}', now() FROM unnest($2::bigint[]) AS s(id)`,
      [g.guildId, seededIds],
    );
  });

  afterAll(async () => {
    for (const c of open) c.ws.terminate();
    await app?.close();
  });

  /** A session of a bot of its own (a bot identifying again at once would be told to wait). */
  const freshSession = async (intents: number): Promise<GatewayClient> => {
    const bot = await createApplication(app, owner);
    await installBot(app, owner, bot, g.guildId);
    return session(bot, intents);
  };
  const session = async (bot: TestApplication, intents: number): Promise<GatewayClient> => {
    const c = await GatewayClient.connect(url);
    open.push(c);
    c.identify(bot.botToken, { intents });
    await c.dispatch('READY');
    await c.dispatch('GUILD_CREATE');
    return c;
  };
  const chunks = async (c: GatewayClient, nonce: string): Promise<Frame[]> => {
    const first = await c.next((f) => f.t === 'GUILD_MEMBERS_CHUNK' && f.d.nonce === nonce, 10_000);
    const mine = () => c.dispatches('GUILD_MEMBERS_CHUNK').filter((f) => f.d.nonce === nonce);
    await c.next(() => mine().length >= first.d.chunk_count, 10_000);
    return mine();
  };

  it('the whole list: chunks of 1,000 with index, count and nonce, no sequence number', async () => {
    const c = await session(privileged, GUILDS | GUILD_MEMBERS);
    // discord.py sends guild_id as a JSON number beyond 2^53: it must keep every digit.
    c.send(`{"op":8,"d":{"guild_id":${g.guildId},"query":"","limit":0,"nonce":"all"}}`);
    const got = await chunks(c, 'all');
    const total = SEEDED + 3; // the owner and the two bots installed before the fixtures
    expect(got.map((f) => [f.d.chunk_index, f.d.chunk_count, f.d.members.length])).toEqual([
      [0, 3, 1000],
      [1, 3, 1000],
      [2, 3, total - 2000],
    ]);
    for (const f of got) {
      expect(f.s).toBeNull();
      expect(f.d.guild_id).toBe(g.guildId);
    }
    const ids = got.flatMap((f) => f.d.members.map((m: { user: { id: string } }) => m.user.id));
    expect(new Set(ids).size).toBe(total);
    expect(ids).toEqual(expect.arrayContaining([owner.userId, ...seededIds.slice(0, 5)]));
    expect(got[0].d.members[0]).toEqual({
      user: expect.objectContaining({ id: expect.any(String), username: expect.any(String) }),
      roles: expect.any(Array),
      joined_at: expect.any(String),
      nick: null,
      avatar: null,
      banner: null,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    });
  });

  it('by name prefix (at most 100, or the limit) and by id (unknown ones in not_found)', async () => {
    const c = await session(plain, GUILDS);
    c.send({ op: 8, d: { guild_id: g.guildId, query: 'CHUNK_000', limit: 5, nonce: 'q' } });
    const [byName] = await chunks(c, 'q');
    expect(byName.d.members.map((m: { user: { username: string } }) => m.user.username)).toEqual([
      'chunk_0000',
      'chunk_0001',
      'chunk_0002',
      'chunk_0003',
      'chunk_0004',
    ]);
    expect(byName.d).toMatchObject({ chunk_index: 0, chunk_count: 1 });
    c.send({ op: 8, d: { guild_id: g.guildId, query: 'chunk_', limit: 0, nonce: 'q100' } });
    const [capped] = await chunks(c, 'q100');
    expect(capped.d.members).toHaveLength(100);

    const unknown = '1234567890123456789';
    c.send({
      op: 8,
      d: { guild_id: g.guildId, user_ids: [seededIds[7], owner.userId, unknown], nonce: 'ids' },
    });
    const [byId] = await chunks(c, 'ids');
    expect(byId.d.members.map((m: { user: { id: string } }) => m.user.id).sort()).toEqual(
      [seededIds[7], owner.userId].sort(),
    );
    expect(byId.d.not_found).toEqual([unknown]);
    // A single id (not a list) is taken too; presences need GUILD_PRESENCES (else none).
    c.send({
      op: 8,
      d: { guild_id: g.guildId, user_ids: owner.userId, presences: true, nonce: 'one' },
    });
    const [one] = await chunks(c, 'one');
    expect(one.d.members).toHaveLength(1);
    expect(one.d).not.toHaveProperty('presences');
  });

  it('a guild the session is not in gets one empty chunk', async () => {
    const c = await freshSession(GUILDS);
    c.send({ op: 8, d: { guild_id: other.guildId, user_ids: [owner.userId], nonce: 'x' } });
    const [chunk] = await chunks(c, 'x');
    expect(chunk.d).toEqual({
      guild_id: other.guildId,
      nonce: 'x',
      members: [],
      chunk_index: 0,
      chunk_count: 1,
    });
  });

  it('the whole list without GUILD_MEMBERS closes 4013; a request without query or ids 4002', async () => {
    const c = await freshSession(GUILDS);
    c.send({ op: 8, d: { guild_id: g.guildId, query: '', limit: 0 } });
    expect((await c.closedWithin()).code).toBe(4013);
    const d = await freshSession(GUILDS);
    d.send({ op: 8, d: { guild_id: g.guildId, limit: 0 } });
    expect((await d.closedWithin()).code).toBe(4002);
  });

  it('before identify, op 8 closes 4003', async () => {
    const c = await GatewayClient.connect(url);
    open.push(c);
    c.send({ op: 8, d: { guild_id: g.guildId, query: '', limit: 0 } });
    expect((await c.closedWithin()).code).toBe(4003);
  });
});
