import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../../config/app.config';
import { AddressRefusedError, guardedLookup, type ResolveAll } from './guarded-lookup';
import { OutboundError, OutboundHttp } from './outbound-http';

/** OutboundHttp whose resolver calls are counted. */
class CountingOutbound extends OutboundHttp {
  lookups: string[] = [];
  constructor(allowPrivate: boolean) {
    super({ outbound: { allowPrivate }, version: 'test' } as AppConfig);
    this.resolveAll = (host, options, callback) => {
      this.lookups.push(host);
      dnsLookup(host, options, callback);
    };
  }
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof OutboundError) return e;
    throw e;
  }
  throw new Error('expected an OutboundError');
}

describe('guardedLookup', () => {
  const answers = (...addresses: string[]): ResolveAll => {
    let call = 0;
    return (_host, _options, callback) => {
      const address = addresses[Math.min(call++, addresses.length - 1)];
      callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
    };
  };
  const run = (lookup: ReturnType<typeof guardedLookup>, all: boolean) =>
    new Promise<{ err: Error | null; result: unknown }>((resolve) =>
      lookup('rebinding.example', { all }, (err, result) => resolve({ err, result })),
    );

  it('judges every lookup: a host that later resolves to loopback is refused then', async () => {
    const lookup = guardedLookup(false, answers('93.184.216.34', '127.0.0.1'));
    expect(await run(lookup, false)).toEqual({ err: null, result: '93.184.216.34' });
    const second = await run(lookup, false);
    expect(second.err).toBeInstanceOf(AddressRefusedError);
    expect((second.err as AddressRefusedError).kind).toBe('loopback');
  });

  it('refuses when any address of the host is internal, and answers `all` as asked', async () => {
    const mixed: ResolveAll = (_h, _o, callback) =>
      callback(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '::ffff:10.0.0.1', family: 6 },
      ]);
    expect((await run(guardedLookup(false, mixed), true)).err).toBeInstanceOf(AddressRefusedError);
    const both = await run(guardedLookup(true, mixed), true);
    expect(both.err).toBeNull();
    expect((both.result as LookupAddress[]).map((a) => a.address)).toEqual([
      '93.184.216.34',
      '::ffff:10.0.0.1',
    ]);
  });
});

describe('OutboundHttp', () => {
  const servers: Server[] = [];
  afterAll(() =>
    servers.forEach((s) => {
      s.closeAllConnections();
      s.close();
    }),
  );
  const start = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    const s = await serve(handler);
    servers.push(s.server);
    return s.port;
  };

  it('resolves on every new connection, and reuses a kept-alive one', async () => {
    const outbound = new CountingOutbound(true);
    const closing = await start((_req, res) => {
      res.setHeader('Connection', 'close');
      res.end('ok');
    });
    for (let i = 0; i < 3; i++) {
      const res = await outbound.post({ url: `http://localhost:${closing}/`, body: '{}' });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('ok');
    }
    expect(outbound.lookups).toEqual(['localhost', 'localhost', 'localhost']);
    outbound.lookups = [];
    const keepAlive = await start((_req, res) => res.end('ok'));
    for (let i = 0; i < 3; i++) {
      await outbound.post({ url: `http://localhost:${keepAlive}/`, body: '{}' });
    }
    expect(outbound.lookups).toEqual(['localhost']);
    outbound.onModuleDestroy();
  });

  it('refuses internal hosts without OUTBOUND_ALLOW_PRIVATE, named or literal', async () => {
    const outbound = new CountingOutbound(false);
    let hits = 0;
    const port = await start((_req, res) => {
      hits += 1;
      res.end('ok');
    });
    // The URL parser turns 2130706433 and 0x7f.1 into 127.0.0.1: judged as that.
    const hosts = ['localhost', '127.0.0.1', '2130706433', '0x7f.1', '[::ffff:127.0.0.1]', '[::1]'];
    for (const host of hosts) {
      const e = await failure(outbound.post({ url: `http://${host}:${port}/`, body: '' }));
      expect(e.reason).toBe('address_refused');
      expect(e.detail).toMatch(/loopback address/);
    }
    expect(hits).toBe(0);
    // Only the named host went through the resolver: literals are judged before connecting.
    expect(outbound.lookups).toEqual(['localhost']);
  });

  it('fails on redirects, oversized answers (declared or streamed) and timeouts', async () => {
    const outbound = new CountingOutbound(true);
    const redirect = await start((_req, res) => {
      res.writeHead(302, { Location: 'http://127.0.0.1/' });
      res.end();
    });
    const declared = await start((_req, res) => res.end('x'.repeat(2048)));
    const streamed = await start((_req, res) => {
      res.write('x'.repeat(1024));
      res.write('x'.repeat(1024));
      res.end();
    });
    const slow = await start(() => undefined);
    const url = (port: number) => `http://127.0.0.1:${port}/`;
    const cases: Array<[Promise<unknown>, string]> = [
      [outbound.post({ url: url(redirect), body: '' }), 'redirect'],
      [outbound.post({ url: url(declared), body: '', maxResponseBytes: 1024 }), 'too_large'],
      [outbound.post({ url: url(streamed), body: '', maxResponseBytes: 1500 }), 'too_large'],
      [outbound.post({ url: url(slow), body: '', timeoutMs: 200 }), 'timeout'],
      [outbound.post({ url: 'ftp://127.0.0.1/', body: '' }), 'invalid_url'],
      [outbound.post({ url: 'http://user:pw@127.0.0.1/', body: '' }), 'invalid_url'],
      [outbound.post({ url: 'http://no-such-host.invalid/', body: '' }), 'unreachable'],
    ];
    for (const [promise, reason] of cases) expect((await failure(promise)).reason).toBe(reason);
    // Within the bound, the answer comes back whatever its status.
    const small = await start((_req, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    const res = await outbound.post({ url: url(small), body: '' });
    expect({ status: res.status, body: res.body.toString() }).toEqual({
      status: 500,
      body: 'boom',
    });
    outbound.onModuleDestroy();
  });
});
