/**
 * The gateway bench's client side (bench/gateway.ts, bench/gateway-bots.ts): raw `ws` connections
 * that identify, heartbeat as clients do, and count what they receive without parsing it.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { json, userWithGuild } from './api';

/** A user with a guild and a webhook in its channel: what every row connects and posts as. */
export interface Fixtures {
  token: string;
  hookUrl: string;
  guildId: string;
  channelId: string;
}

export async function fixtures(base: string): Promise<Fixtures> {
  const { token, guildId } = await userWithGuild(base, 'gw', 'gateway bench');
  const auth = { authorization: token };
  const [channel] = await json<Array<{ id: string }>>(`${base}/v1/guilds/${guildId}/channels`, {
    headers: auth,
  });
  const hook = await json<{ id: string; token: string }>(
    `${base}/v1/channels/${channel.id}/webhooks`,
    { method: 'POST', headers: auth, body: JSON.stringify({ name: 'bench' }), expect: 201 },
  );
  return {
    token,
    hookUrl: `/v1/webhooks/${hook.id}/${hook.token}`,
    guildId,
    channelId: channel.id,
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One client connection; counts MESSAGE_CREATE frames without parsing unless `watch` is set. */
export class Conn {
  messages = 0;
  /** TYPING_START frames (the typing fan-out row). */
  typing = 0;
  /** The last sequence number seen, acknowledged by heartbeats as clients do. */
  seq: number | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  onText: ((text: string) => void) | null = null;

  private constructor(readonly ws: WebSocket) {}

  static open(url: string, token: string | null): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const conn = new Conn(ws);
      let ready = false;
      ws.on('error', reject);
      ws.on('message', (data: Buffer, binary: boolean) => {
        if (binary) {
          // zlib-stream: the rows that use it only wait for READY's arrival.
          if (!ready) {
            ready = true;
            if (token) ws.send(identify(token));
            else resolve(conn);
          } else if (token) resolve(conn);
          return;
        }
        const text = data.toString();
        if (!ready) {
          ready = true;
          const hello = JSON.parse(text) as { d: { heartbeat_interval: number } };
          conn.heartbeat = setInterval(
            () => ws.send(`{"op":1,"d":${conn.seq}}`),
            hello.d.heartbeat_interval * 0.9,
          );
          conn.heartbeat.unref();
          if (token) ws.send(identify(token));
          else resolve(conn);
          return;
        }
        const s = /^\{"op":0,"s":(\d+)/.exec(text);
        if (s) conn.seq = Number(s[1]);
        if (text.includes('"t":"GUILD_CREATE"')) {
          // The first heartbeat soon after, acknowledging READY and GUILD_CREATE (discord.js
          // sends it after a random share of the interval): the steady state of an idle client.
          setTimeout(() => ws.send(`{"op":1,"d":${conn.seq}}`), 1_000).unref();
          resolve(conn);
        } else if (text.includes('"t":"MESSAGE_CREATE"')) {
          conn.messages += 1;
          conn.onText?.(text);
        } else if (text.includes('"t":"TYPING_START"')) {
          conn.typing += 1;
        } else {
          conn.onText?.(text);
        }
      });
    });
  }

  /** Leaves as a client does (1000: the session ends; a cut connection would stay resumable). */
  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.ws.close(1000);
    setTimeout(() => this.ws.terminate(), 2_000).unref();
  }
}

export function identify(token: string): string {
  return JSON.stringify({
    op: 2,
    d: { token, properties: { os: 'linux', browser: 'bench', device: 'bench' } },
  });
}

export async function openMany(url: string, token: string | null, n: number): Promise<Conn[]> {
  const out: Conn[] = [];
  for (let i = 0; i < n; i += 250) {
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(250, n - i) }, () => Conn.open(url, token)),
      )),
    );
  }
  return out;
}

export async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > until) return false;
    await sleep(2);
  }
  return true;
}
