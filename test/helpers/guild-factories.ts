import type { ParleyApp } from '../../src/app.setup';
import { DataSource } from 'typeorm';
import { GuildMemberEntity } from '../../src/modules/guilds/guild-member.entity';
import { GuildMembersService } from '../../src/modules/guilds/guild-members.service';
import { GuildRolesService } from '../../src/modules/guilds/guild-roles.service';
import { createAdminKey, type TestAdminKey } from './admin';
import { http, unique } from './app';

export interface TestGuild {
  guildId: string;
  channelId: string;
}

/** A 1x1 PNG as a Base64ImageType data URI. */
export const PNG_DATA_URI =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Creates a guild owned by `token`'s user; returns it with its `general` channel. */
export async function createGuild(app: ParleyApp, token: string): Promise<TestGuild> {
  const res = await http(app)
    .post('/v1/guilds')
    .set('Authorization', token)
    .send({ name: unique('guild ') });
  if (res.status !== 201)
    throw new Error(`create guild: ${res.status} ${JSON.stringify(res.body)}`);
  const channels = await http(app)
    .get(`/v1/guilds/${res.body.id}/channels`)
    .set('Authorization', token);
  return { guildId: res.body.id as string, channelId: channels.body[0].id as string };
}

const bulkKeys = new WeakMap<ParleyApp, Promise<TestAdminKey>>();

/**
 * Puts a user in a guild the way an operator does (the admin API's bulk add, with a key that
 * holds only `bulk:add:guild_members`). Users cannot add others to guilds without their consent
 * (a bot with their `guilds.join` grant: see test/security/grants.e2e-spec.ts).
 */
export async function addMember(app: ParleyApp, guildId: string, userId: string): Promise<void> {
  let key = bulkKeys.get(app);
  if (!key) {
    key = createAdminKey(app, ['bulk:add:guild_members']);
    bulkKeys.set(app, key);
  }
  const res = await http(app)
    .post('/v1/admin/bulk/add-guild-members')
    .set('Authorization', (await key).header)
    .send({ guild_id: guildId, user_ids: [userId] });
  if (res.status !== 200 || (res.body as { failed: unknown[] }).failed.length > 0) {
    throw new Error(`add member: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

/**
 * Gives a member a new role carrying `permissions`, at the top of the hierarchy (above every
 * existing role). Test set-up only: through the services, past the role routes' permission,
 * hierarchy and grant checks (test/roles.e2e-spec.ts covers those).
 */
export async function giveRole(
  app: ParleyApp,
  guildId: string,
  userId: string,
  permissions: bigint,
): Promise<string> {
  // Through the owners of roles and members, as the app writes them (with their events).
  return app.get(DataSource).transaction(async (m) => {
    const role = await app
      .get(GuildRolesService)
      .create(m, guildId, { name: 'test role', permissions });
    const member = await m.findOneByOrFail(GuildMemberEntity, { guildId, userId });
    await app.get(GuildMembersService).setRoles(m, guildId, userId, [...member.roles, role.id]);
    return role.id;
  });
}

export interface TestWebhook {
  id: string;
  token: string;
  channelId: string;
  guildId: string;
}

export async function createWebhook(
  app: ParleyApp,
  token: string,
  channelId: string,
  name = 'Hook',
): Promise<TestWebhook> {
  const res = await http(app)
    .post(`/v1/channels/${channelId}/webhooks`)
    .set('Authorization', token)
    .send({ name });
  if (res.status !== 201)
    throw new Error(`create webhook: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    id: res.body.id as string,
    token: res.body.token as string,
    channelId,
    guildId: res.body.guild_id as string,
  };
}
