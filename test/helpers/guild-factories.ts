import type { ParleyApp } from '../../src/app.setup';
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

export async function addMember(
  app: ParleyApp,
  ownerToken: string,
  guildId: string,
  userId: string,
): Promise<void> {
  const res = await http(app)
    .put(`/v1/guilds/${guildId}/members/${userId}`)
    .set('Authorization', ownerToken)
    .send({});
  if (res.status !== 201) throw new Error(`add member: ${res.status} ${JSON.stringify(res.body)}`);
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
