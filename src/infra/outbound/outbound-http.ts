import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { lookup as dnsLookup } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { AppConfig } from '../../config/app.config';
import { classifyAddress, isAddressAllowed } from './address-policy';
import { AddressRefusedError, guardedLookup, type ResolveAll } from './guarded-lookup';

/** Why an outbound request failed; `detail` says more for a person (never holds the body). */
export type OutboundFailure =
  'invalid_url' | 'address_refused' | 'unreachable' | 'timeout' | 'redirect' | 'too_large';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface OutboundRequest {
  url: string;
  headers?: Record<string, string>;
  body: string | Buffer;
  /** For the whole exchange: connecting, sending, the answer's headers and body. */
  timeoutMs?: number;
  /** The answer's body is refused past this many bytes. */
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export const OUTBOUND_TIMEOUT_MS = 3_000;
export const OUTBOUND_MAX_RESPONSE_BYTES = 64 * 1024;
/** Origins with a kept-alive agent; past this the oldest agent is closed. */
const MAX_AGENTS = 256;

/**
 * HTTP requests to addresses users give (interaction endpoints): a total timeout, a bounded
 * answer, no redirects (a 3xx is a failure), and only public addresses, checked after DNS
 * resolution on every connection, unless OUTBOUND_ALLOW_PRIVATE=true. One kept-alive agent per
 * origin.
 */
@Injectable()
export class OutboundHttp implements OnModuleDestroy {
  private readonly allowPrivate: boolean;
  private readonly agents = new Map<string, HttpAgent>();
  private readonly userAgent: string;
  /** The resolver behind every agent's lookup (node:dns; the unit tests count its calls). */
  protected resolveAll: ResolveAll = dnsLookup;

  constructor(config: AppConfig) {
    this.allowPrivate = config.outbound.allowPrivate;
    this.userAgent = `Parley/${config.version}`;
  }

  onModuleDestroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** POSTs the body; the answer whatever its status but 3xx, or an OutboundError. */
  async post(req: OutboundRequest): Promise<OutboundResponse> {
    const url = this.checkUrl(req.url);
    const timeoutMs = req.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
    const maxBytes = req.maxResponseBytes ?? OUTBOUND_MAX_RESPONSE_BYTES;
    const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<OutboundResponse>((resolve, reject) => {
      let settled = false;
      const finish = (err: OutboundError | null, res?: OutboundResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          outgoing.destroy();
          reject(err);
        } else resolve(res!);
      };
      const outgoing = send(url, {
        method: 'POST',
        agent: this.agentFor(url),
        headers: {
          'User-Agent': this.userAgent,
          ...req.headers,
          'Content-Length': String(body.length),
        },
      });
      const timer = setTimeout(
        () => finish(new OutboundError('timeout', `no complete answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      outgoing.on('error', (e) => finish(toOutboundError(e)));
      outgoing.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          return finish(
            new OutboundError('redirect', `answered ${status}; redirects are not followed`),
          );
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          return finish(new OutboundError('too_large', `answer over ${maxBytes} bytes`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            finish(new OutboundError('too_large', `answer over ${maxBytes} bytes`));
            res.destroy();
          } else chunks.push(chunk);
        });
        res.on('error', (e) => finish(toOutboundError(e)));
        res.on('close', () => {
          if (!res.complete) finish(new OutboundError('unreachable', 'answer cut short'));
        });
        res.on('end', () =>
          finish(null, { status, headers: res.headers, body: Buffer.concat(chunks, size) }),
        );
      });
      outgoing.end(body);
    });
  }

  /** An absolute http(s) URL without credentials whose host, if an address, is allowed. */
  private checkUrl(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new OutboundError('invalid_url', 'not an absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundError('invalid_url', 'only http and https URLs are reached');
    }
    if (url.username || url.password) {
      throw new OutboundError('invalid_url', 'URLs with credentials are not reached');
    }
    // A literal address skips the resolver (and so the agent's lookup): judge it here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !isAddressAllowed(host, this.allowPrivate)) {
      throw refusedError(classifyAddress(host));
    }
    return url;
  }

  private agentFor(url: URL): HttpAgent {
    const key = `${url.protocol}//${url.host}`;
    const known = this.agents.get(key);
    if (known) return known;
    if (this.agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, HttpAgent];
      oldest.destroy();
      this.agents.delete(oldestKey);
    }
    const options = {
      keepAlive: true,
      keepAliveMsecs: 1_000,
      maxSockets: 32,
      maxFreeSockets: 4,
      timeout: 30_000,
      lookup: guardedLookup(this.allowPrivate, (host, options, callback) =>
        this.resolveAll(host, options, callback),
      ),
    };
    const agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    this.agents.set(key, agent);
    return agent;
  }
}

function refusedError(kind: string): OutboundError {
  const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
  return new OutboundError(
    'address_refused',
    `the host is ${article} ${kind} address, which this server does not reach (OUTBOUND_ALLOW_PRIVATE)`,
  );
}

function toOutboundError(e: Error): OutboundError {
  if (e instanceof OutboundError) return e;
  if (e instanceof AddressRefusedError) return refusedError(e.kind);
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new OutboundError('unreachable', 'the host name does not resolve');
  }
  return new OutboundError(
    'unreachable',
    code ? `connection failed (${code})` : 'connection failed',
  );
}
