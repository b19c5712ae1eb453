/**
 * The gateway bench's interaction rows (issue 29): a member's `POST /v1/interactions` → the
 * bot's INTERACTION_CREATE, and the whole round trip — invoke, the bot answers with a message
 * (callback type 4), the member's session receives its MESSAGE_CREATE. Raw `ws` on both sides.
 */
import { verifyKey } from 'discord-interactions';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
 * The bot as an HTTP endpoint on loopback (what the `discord-interactions` package checks, with
 * its `verifyKey`): PING answered, every interaction's arrival reported, answered 202.
 */
async function endpointBot(
  verifyKeyHex: string,
  onInteraction: (key: string) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signature = String(req.headers['x-signature-ed25519'] ?? '');
      const timestamp = String(req.headers['x-signature-timestamp'] ?? '');
      void verifyKey(raw, signature, timestamp, verifyKeyHex).then((ok) => {
        if (!ok) return void res.writeHead(401).end('invalid signature');
        const body = JSON.parse(raw.toString()) as {
          type: number;
          data?: { options: Array<{ value: string }> };
        };
        if (body.type === 1) {
          return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":1}');
        }
        onInteraction(body.data!.options[0].value);
        res.writeHead(202).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/interactions`, server };
}

/** How the bot takes its interactions, and what is timed. */
export type InteractionMode = 'gateway' | 'answered' | 'http';

/**
 * `rate` interactions a second for `seconds`. `gateway`: until the bot's session has the
 * INTERACTION_CREATE; `answered`: the bot answers each (type 4), until the member's session has
 * the MESSAGE_CREATE; `http`: the bot is a signed HTTP endpoint (the server needs
 * OUTBOUND_ALLOW_PRIVATE=true), until the request arrives there.
 */
export async function interactionLatency(
  base: string,
  fx: Fixtures,
  wsUrl: string,
  rate: number,
  seconds: number,
  mode: InteractionMode,
): Promise<InteractionLatency> {
  const answer = mode === 'answered';
  const setup = await botWithCommand(base, fx);
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const seen = (key: string | undefined) => {
    const t = key && sentAt.get(key);
    if (t) latencies.push(performance.now() - t);
  };
  let endpoint: Server | null = null;
  if (mode === 'http') {
    const app = await json<{ verify_key: string }>(`${base}/api/v10/oauth2/applications/@me`, {
      headers: { authorization: `Bot ${setup.botToken}` },
    });
    const bench = await endpointBot(app.verify_key, (key) => seen(key));
    endpoint = bench.server;
    await json(`${base}/v1/oauth2/applications/${setup.applicationId}`, {
      method: 'PATCH',
      headers: { authorization: fx.token },
      body: JSON.stringify({ interactions_endpoint_url: bench.url }),
    });
  }
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
  endpoint?.close();
  await sleep(1_000);
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { p50: q(0.5), p99: q(0.99), received: latencies.length, sent: total };
}
