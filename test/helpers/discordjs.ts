import { Client, Events, type GatewayIntentBits } from 'discord.js';

/**
 * An unmodified discord.js 14 client logged in to Parley on `port`: only `rest.api` points it
 * there, at Discord's path layout (`/api`, discord.js adds `/v10`; it finds the gateway through
 * GET /gateway/bot). Resolves once it is ready.
 */
export async function loginDiscordJs(
  port: number,
  token: string,
  intents: GatewayIntentBits[],
): Promise<Client> {
  const client = new Client({ intents, rest: { api: `http://127.0.0.1:${port}/api` } });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(token);
  await ready;
  return client;
}

/** Resolves with the arguments of the first `event` that satisfy `match`. */
export function waitFor<A extends unknown[]>(
  client: Client,
  event: string,
  match: (...args: A) => boolean,
  timeoutMs = 10_000,
): Promise<A> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (...args: unknown[]) => {
      if (!match(...(args as A))) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(args as A);
    };
    client.on(event, listener);
  });
}
