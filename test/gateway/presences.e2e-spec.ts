import type { ParleyApp } from '../../src/app.setup';
import { createTestApp } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { createGuild, type TestGuild } from '../helpers/guild-factories';
import {
  createApplication,
  installBot,
  MEMBERS_INTENT_FLAG,
  PRESENCE_INTENT_FLAG,
  setApplicationFlags,
  type TestApplication,
} from '../helpers/oauth2-factories';
import { serverPort } from '../helpers/ports';

const GUILDS = 1 << 0;
const GUILD_MEMBERS = 1 << 1;
const GUILD_PRESENCES = 1 << 8;

/**
 * Op 3 Presence Update and GUILD_PRESENCES over raw WebSockets, on two instances sharing Redis:
 * a presence set on one is announced to sessions on the other and listed in their GUILD_CREATE.
 */
describe('gateway: presences (op 3, PRESENCE_UPDATE, GUILD_CREATE presences)', () => {
  let one: ParleyApp;
  let two: ParleyApp;
  let urlOne: string;
  let urlTwo: string;
  let owner: TestUser;
  let g: TestGuild;
  const open: GatewayClient[] = [];

  beforeAll(async () => {
    const [portOne, portTwo] = [await serverPort(), await serverPort()];
    const shared = { REDIS_URL: process.env.TEST_REDIS_URL! };
    one = await createTestApp({ env: shared });
    two = await createTestApp({ env: shared });
    await one.listen(portOne, '127.0.0.1');
    await two.listen(portTwo, '127.0.0.1');
    urlOne = `ws://127.0.0.1:${portOne}/gateway`;
    urlTwo = `ws://127.0.0.1:${portTwo}/gateway`;
    owner = await registerUser(one);
    g = await createGuild(one, owner.token);
  });

  afterAll(async () => {
    for (const c of open) c.ws.terminate();
    await two?.close();
    await one?.close();
  });

  const bot = async (flags: number): Promise<TestApplication> => {
    const application = await createApplication(one, owner);
    if (flags) await setApplicationFlags(one, owner, application, flags);
    await installBot(one, owner, application, g.guildId);
    return application;
  };
  const session = async (url: string, token: string, d: Record<string, unknown> = {}) => {
    const c = await GatewayClient.connect(url);
    open.push(c);
    c.identify(token, d);
    await c.dispatch('READY');
    return c;
  };
  const presenceOf = (c: GatewayClient, userId: string, status: string) =>
    c.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === userId && f.d.status === status);

  it('announces a user’s presence to bots with GUILD_PRESENCES on another instance, and only them', async () => {
    const watching = await session(urlTwo, (await bot(PRESENCE_INTENT_FLAG)).botToken, {
      intents: GUILDS | GUILD_PRESENCES,
    });
    const blind = await session(urlTwo, (await bot(0)).botToken, { intents: GUILDS });
    await watching.dispatch('GUILD_CREATE');
    await blind.dispatch('GUILD_CREATE');

    const user = await session(urlOne, owner.token);
    const online = await presenceOf(watching, owner.userId, 'online');
    expect(online.s).toBeNull();
    expect(online.d).toEqual({
      user: { id: owner.userId },
      guild_id: g.guildId,
      status: 'online',
      activities: [],
      client_status: { web: 'online' },
    });

    user.send({
      op: 3,
      d: { since: null, activities: [{ name: 'chess', type: 0 }], status: 'dnd', afk: false },
    });
    const dnd = await presenceOf(watching, owner.userId, 'dnd');
    expect(dnd.d.activities).toEqual([{ name: 'chess', type: 0, created_at: expect.any(Number) }]);

    // A bot connecting now (on the other instance) finds it in GUILD_CREATE.
    const late = await session(
      urlTwo,
      (await bot(PRESENCE_INTENT_FLAG | MEMBERS_INTENT_FLAG)).botToken,
      { intents: GUILDS | GUILD_MEMBERS | GUILD_PRESENCES },
    );
    const create = await late.dispatch('GUILD_CREATE');
    expect(create.d.presences).toEqual(
      expect.arrayContaining([
        {
          user: { id: owner.userId },
          status: 'dnd',
          activities: [expect.objectContaining({ name: 'chess' })],
          client_status: { web: 'dnd' },
        },
      ]),
    );

    // Its last session closes normally: offline.
    user.close(1000);
    await presenceOf(watching, owner.userId, 'offline');
    expect(blind.dispatches('PRESENCE_UPDATE')).toEqual([]);
  });

  it('a bot sets its own presence at identify; invisible shows as offline; a bad op 3 is 4002', async () => {
    const watching = await session(urlOne, (await bot(PRESENCE_INTENT_FLAG)).botToken, {
      intents: GUILDS | GUILD_PRESENCES,
    });
    await watching.dispatch('GUILD_CREATE');
    const shy = await bot(0);
    const c = await session(urlTwo, shy.botToken, {
      intents: GUILDS,
      presence: { since: null, activities: [], status: 'idle', afk: false },
    });
    await presenceOf(watching, shy.botUserId, 'idle');
    c.send({ op: 3, d: { since: null, activities: [], status: 'invisible', afk: false } });
    await presenceOf(watching, shy.botUserId, 'offline');
    c.send({ op: 3, d: { status: 'sleeping' } });
    expect((await c.closedWithin()).code).toBe(4002);
  });
});
