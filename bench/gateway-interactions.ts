/**
 * The gateway bench's interaction rows (issue 29): a member's `POST /v1/interactions` → the
 * bot's INTERACTION_CREATE, and the whole round trip — invoke, the bot answers with a message
 * (callback type 4), the member's session receives its MESSAGE_CREATE. Raw `ws` on both sides.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { json } from './api';
import { Conn, sleep, waitUntil, type Fixtures } from './gateway-clients';

/** An application with its bot installed in the fixture guild and one guild command. */
interface BotSetup {
  applicationId: string;
  botToken: string;
  commandId: string;
}

async function botWithCommand(base: string, fx: Fixtures): Promise<BotSetup> {
  const auth = { authorization: fx.token };
  const app = await json<{ id: string; bot: { token: string } }>(`${base}/v1/oauth2/applications`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'bench bot', redirect_uris: ['https://bench.invalid/cb'] }),
  });
  await json(`${base}/v1/oauth2/authorize/consent`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      client_id: app.id,
      scope: 'bot',
      guild_id: fx.guildId,
      permissions: '3072',
    }),
  });
  const command = await json<{ id: string }>(
    `${base}/api/v10/applications/${app.id}/guilds/${fx.guildId}/commands`,
    {
      method: 'POST',
      headers: { authorization: `Bot ${app.bot.token}` },
      body: JSON.stringify({
        name: 'echo',
        description: 'Echo',
        options: [{ name: 'text', description: 'Text', type: 3, required: true }],
      }),
      expect: 201,
    },
  );
  return { applicationId: app.id, botToken: app.bot.token, commandId: command.id };
}

/** The bot's gateway session: calls `onInteraction` with each INTERACTION_CREATE's payload. */
function botSession(
  wsUrl: string,
  token: string,
  onInteraction: (d: {
    id: string;
    token: string;
    data: { options: Array<{ value: string }> };
  }) => void,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
    ws.on('error', reject);
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('{"op":10')) {
        ws.send(
          JSON.stringify({
            op: 2,
            d: {
              token: `Bot ${token}`,
              intents: 1,
              properties: { os: 'linux', browser: 'bench', device: 'bench' },
            },
          }),
        );
      } else if (text.includes('"t":"READY"')) {
        resolve(ws);
      } else if (text.includes('"t":"INTERACTION_CREATE"')) {
        onInteraction((JSON.parse(text) as { d: Parameters<typeof onInteraction>[0] }).d);
      }
    });
  });
}

export interface InteractionLatency {
  p50: number;
  p99: number;
  received: number;
  sent: number;
}

/**
 * `rate` interactions a second for `seconds`: with `answer`, the bot answers each (type 4) and the
 * time is until the member's session has the MESSAGE_CREATE; without, until the bot has the
 * INTERACTION_CREATE.
 */
export async function interactionLatency(
  base: string,
  fx: Fixtures,
  wsUrl: string,
  rate: number,
  seconds: number,
  answer: boolean,
): Promise<InteractionLatency> {
  const setup = await botWithCommand(base, fx);
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const seen = (key: string | undefined) => {
    const t = key && sentAt.get(key);
    if (t) latencies.push(performance.now() - t);
  };
  const bot = await botSession(wsUrl, setup.botToken, (d) => {
    const key = d.data.options[0].value;
    if (!answer) return seen(key);
    void fetch(`${base}/api/v10/interactions/${d.id}/${d.token}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 4, data: { content: `answer ${key}` } }),
    }).then((r) => r.arrayBuffer());
  });
  const member = await Conn.open(wsUrl, fx.token);
  member.onText = (text) => {
    const m = /"content":"answer (k\d+)"/.exec(text);
    if (m) seen(m[1]);
  };
  await sleep(1_000);
  const total = rate * seconds;
  const posts: Array<Promise<unknown>> = [];
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const key = `k${i}`;
    sentAt.set(key, performance.now());
    posts.push(
      fetch(`${base}/v1/interactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: fx.token },
        body: JSON.stringify({
          type: 2,
          application_id: setup.applicationId,
          guild_id: fx.guildId,
          channel_id: fx.channelId,
          data: {
            id: setup.commandId,
            name: 'echo',
            type: 1,
            options: [{ name: 'text', type: 3, value: key }],
          },
        }),
      }).then((r) => r.arrayBuffer()),
    );
  }
  await Promise.all(posts);
  await waitUntil(() => latencies.length >= total, 10_000);
  bot.close();
  member.close();
  await sleep(1_000);
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { p50: q(0.5), p99: q(0.99), received: latencies.length, sent: total };
}
