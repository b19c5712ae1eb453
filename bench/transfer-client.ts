/**
 * The load generator of the attachments bench (bench/attachments.ts): large bodies up and down
 * over plain node:http with keep-alive, as cheap for the client as it gets — a multipart body is
 * built once and written as one buffer; a download's bytes are counted and dropped — so that the
 * client costs the same whichever server it talks to.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export const MiB = 1024 * 1024;

/** Discord's form as discord.js sends it: `payload_json` naming the file, then `files[0]`. */
export function multipartBody(
  file: Buffer,
  filename: string,
): { body: Buffer; contentType: string } {
  const boundary = `----parleybench${randomBytes(8).toString('hex')}`;
  const payload = JSON.stringify({ content: 'bench upload', attachments: [{ id: 0, filename }] });
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\n` +
    `Content-Type: application/json\r\n\r\n${payload}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="files[0]"; filename="${filename}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  return {
    body: Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** One keep-alive agent per server, with a socket for every concurrent transfer. */
export function agentFor(sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets });
}

/** POSTs `body` (one write) and reads the whole answer. */
export function post(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  agent: Agent,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** GETs `url`, counting the body's bytes without keeping them. */
export function download(url: string, agent: Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** What one transfer moved: its payload bytes, or null when it failed (wrong status or size). */
export type Transfer = () => Promise<number | null>;

export interface Throughput {
  /** Payload MiB per second over the window (all transfers begun in it, to their end). */
  mibps: number;
  transfers: number;
  failures: number;
  seconds: number;
}

/**
 * `concurrency` workers each run `one` back to back for `seconds`; the bytes of every transfer
 * begun in that window, over the time until the last one ended.
 */
export async function throughput(
  concurrency: number,
  seconds: number,
  one: Transfer,
): Promise<Throughput> {
  let bytes = 0;
  let transfers = 0;
  let failures = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const moved = await one().catch(() => null);
        transfers += 1;
        if (moved === null) failures += 1;
        else bytes += moved;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  return { mibps: bytes / MiB / elapsed, transfers, failures, seconds: elapsed };
}
