import type { ParleyApp } from '../../src/app.setup';
import { createTestApp, http } from '../helpers/app';
import { registerUser, type TestUser } from '../helpers/factories';
import { GatewayClient } from '../helpers/gateway-client';
import { addMember, createGuild, type TestGuild } from '../helpers/guild-factories';
import { serverPort } from '../helpers/ports';

const VIEW_CHANNEL = 1n << 10n;
const SEND_MESSAGES = 1n << 11n;
const READ_MESSAGE_HISTORY = 1n << 16n;

/**
 * Channel visibility follows role and permission edits at once, for every live session: what a
 * member's session receives changes with the edit that changed what they may see.
 */
describe('gateway: visibility follows role and permission edits', () => {
  let app: ParleyApp;
  let owner: TestUser;
  let member: TestUser;
  let g: TestGuild;
  let watcher: GatewayClient;
  let memberSession: GatewayClient;
  /** A role renamed as a marker: its GUILD_ROLE_UPDATE reaches every member's session. */
  let markerRole: string;

  beforeAll(async () => {
    const port = await serverPort();
    app = await createTestApp();
    await app.listen(port, '127.0.0.1');
    [owner, member] = await Promise.all([registerUser(app), registerUser(app)]);
    g = await createGuild(app, owner.token);
    await addMember(app, g.guildId, member.userId);
    const url = `ws://127.0.0.1:${port}/gateway`;
    const marker = await http(app)
      .post(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send({ name: 'marker' })
      .expect(200);
    markerRole = marker.body.id as string;
    watcher = await GatewayClient.ready(url, owner.token);
    memberSession = await GatewayClient.ready(url, member.token);
  });

  afterAll(async () => {
    watcher?.ws.terminate();
    memberSession?.ws.terminate();
    await app?.close();
  });

  const post = async (content: string): Promise<string> => {
    const res = await http(app)
      .post(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', owner.token)
      .send({ content })
      .expect(201);
    return res.body.id as string;
  };
  const setRole = (roleId: string, body: object) =>
    http(app)
      .patch(`/v1/guilds/${g.guildId}/roles/${roleId}`)
      .set('Authorization', owner.token)
      .send(body)
      .expect(200);
  /** Whether the member's session got MESSAGE_CREATE `id`, once a later guild event reached it. */
  const memberSaw = async (id: string, marker: string): Promise<boolean> => {
    await setRole(markerRole, { name: marker });
    await memberSession.next((f) => f.t === 'GUILD_ROLE_UPDATE' && f.d.role.name === marker);
    return memberSession.dispatches('MESSAGE_CREATE').some((f) => f.d.id === id);
  };

  it('@everyone losing VIEW_CHANNEL hides the channel’s events from the next one on; a role gives it back; deleting the role takes it away', async () => {
    const visible = await post('everyone sees this');
    expect(await memberSaw(visible, 'marker-1')).toBe(true);

    await setRole(g.guildId, { permissions: String(SEND_MESSAGES | READ_MESSAGE_HISTORY) });
    const hidden = await post('members without view do not');
    await watcher.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === hidden);
    expect(await memberSaw(hidden, 'marker-2')).toBe(false);

    // A role with VIEW_CHANNEL given to the member (GUILD_MEMBER_UPDATE): visible again.
    const role = await http(app)
      .post(`/v1/guilds/${g.guildId}/roles`)
      .set('Authorization', owner.token)
      .send({ name: 'viewers', permissions: String(VIEW_CHANNEL) })
      .expect(200);
    await http(app)
      .put(`/v1/guilds/${g.guildId}/members/${member.userId}/roles/${role.body.id}`)
      .set('Authorization', owner.token)
      .expect(204);
    const back = await post('seen again through a role');
    expect(await memberSaw(back, 'marker-3')).toBe(true);

    // Deleting the role (GUILD_ROLE_DELETE) takes it away again.
    await http(app)
      .delete(`/v1/guilds/${g.guildId}/roles/${role.body.id}`)
      .set('Authorization', owner.token)
      .expect(204);
    const gone = await post('hidden once the role is gone');
    expect(await memberSaw(gone, 'marker-4')).toBe(false);

    // And REST agrees: the channel is not readable without VIEW_CHANNEL.
    const read = await http(app)
      .get(`/v1/channels/${g.channelId}/messages`)
      .set('Authorization', member.token);
    expect(read.status).toBe(403);
  });
});
