import { verifyKeyMiddleware } from 'discord-interactions';
import express, { type RequestHandler } from 'express';
import { createPublicKey, verify } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request an endpoint received: what the application's server saw. */
export interface ReceivedInteraction {
  headers: IncomingHttpHeaders;
  body: string;
}

/** `discord-interactions`' verifyKeyMiddleware, unmodified: what a bot's HTTP endpoint runs. */
export function verifyingMiddleware(verifyKey: string): RequestHandler {
  return verifyKeyMiddleware(verifyKey) as RequestHandler;
}

/** The Ed25519 SPKI header before the raw 32-byte public key. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Whether the request's signature is the application's (the test's own check of what was sent). */
export function verifySignature(verifyKey: string, headers: IncomingHttpHeaders, body: string) {
  const signature = String(headers['x-signature-ed25519'] ?? '');
  const timestamp = String(headers['x-signature-timestamp'] ?? '');
  if (!/^[0-9a-f]{128}$/.test(signature) || !timestamp) return false;
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(verifyKey, 'hex')]),
    format: 'der',
    type: 'spki',
  });
  return verify(null, Buffer.from(timestamp + body), key, Buffer.from(signature, 'hex'));
}

export interface TestEndpoint {
  url: string;
  port: number;
  received: ReceivedInteraction[];
  close(): Promise<void>;
}

/**
 * An application's server on loopback: `received` logs every request (headers and raw body) in
 * front of the app's own handlers, which `mount` adds (e.g. verifyingMiddleware + a route).
 */
export async function startEndpoint(
  mount: (app: express.Express) => void,
  path = '/interactions',
): Promise<TestEndpoint> {
  const app = express();
  const received: ReceivedInteraction[] = [];
  app.use((req, _res, next) => {
    const chunks: Buffer[] = [];
    const entry: ReceivedInteraction = { headers: req.headers, body: '' };
    received.push(entry);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => (entry.body = Buffer.concat(chunks).toString('utf8')));
    next();
  });
  mount(app);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
