import type { ParleyApp } from '../../src/app.setup';
import { http } from './app';
import { GatewayClient } from './gateway-client';

export const INTENT = {
  GUILDS: 1,
  GUILD_MEMBERS: 1 << 1,
  GUILD_MODERATION: 1 << 2,
  GUILD_MESSAGES: 1 << 9,
};

/** A bot's raw gateway session with exactly `intents`, past READY and its guilds' GUILD_CREATE. */
export async function botSession(
  port: number,
  botToken: string,
  intents: number,
  guilds = 1,
): Promise<GatewayClient> {
  const client = await GatewayClient.connect(`ws://127.0.0.1:${port}/gateway`);
  client.identify(botToken, { intents });
  await client.dispatch('READY');
  if (intents & INTENT.GUILDS) {
    await client.next(() => client.dispatches('GUILD_CREATE').length >= guilds);
  }
  return client;
}

/**
 * Posts a message and waits until every session in `clients` has its MESSAGE_CREATE: a guild's
 * events reach a session in order, so whatever was published before has arrived by then (how a
 * test shows that an event did NOT reach a session). The sessions need GUILD_MESSAGES.
 */
export async function barrier(
  app: ParleyApp,
  token: string,
  channelId: string,
  clients: GatewayClient[],
): Promise<void> {
  const res = await http(app)
    .post(`/v1/channels/${channelId}/messages`)
    .set('Authorization', token)
    .send({ content: 'barrier' })
    .expect(201);
  await Promise.all(
    clients.map((c) => c.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === res.body.id, 10_000)),
  );
}
