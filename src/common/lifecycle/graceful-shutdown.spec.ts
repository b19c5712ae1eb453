import { Logger, type INestApplication } from '@nestjs/common';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { DrainState } from './drain-state';
import { GracefulShutdown } from './graceful-shutdown';

/** Sends raw bytes on a socket and resolves with everything the server wrote before closing. */
function readUntilClosed(
  socket: Socket,
): Promise<{ data: string; error: NodeJS.ErrnoException | null }> {
  return new Promise((resolve) => {
    let data = '';
    let error: NodeJS.ErrnoException | null = null;
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', (err) => (error = err));
    socket.on('close', () => resolve({ data, error }));
  });
}

function connected(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('GracefulShutdown', () => {
  let server: Server;
  let port: number;
  let drain: DrainState;
  let appClosed: boolean;
  let shutdown: GracefulShutdown;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    drain = new DrainState();
    server = createServer((req, res) => {
      if (drain.draining) res.setHeader('Connection', 'close');
      res.end(`ok ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    appClosed = false;
    const app = { close: async () => void (appClosed = true) } as unknown as INestApplication;
    shutdown = new GracefulShutdown(app, server, drain, { graceMs: 0, timeoutMs: 5_000 }, () => {
      throw new Error('exit is not called by shutdown()');
    });
  });

  afterEach(() => {
    jest.restoreAllMocks();
    server.closeAllConnections();
    if (server.listening) server.close();
  });

  it('serves the first request of a connection accepted just before the listener closed', async () => {
    const socket = await connected(port);
    const reply = readUntilClosed(socket);
    const stopped = shutdown.shutdown('test');
    await new Promise((r) => setTimeout(r, 100));
    // The listener is closed: new connections are refused…
    await expect(connected(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // …but the request of the connection accepted before is served, and its connection closed.
    socket.write('GET /late HTTP/1.1\r\nHost: x\r\n\r\n');
    const { data, error } = await reply;
    expect(error).toBeNull();
    expect(data).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(data).toMatch(/\r\nConnection: close\r\n/i);
    expect(data.endsWith('ok /late')).toBe(true);
    await stopped;
    expect(appClosed).toBe(true);
  });

  it('closes idle keep-alive connections at once and a silent new connection after its grace', async () => {
    // A keep-alive connection that served a request before draining.
    const agentReply = await new Promise<{ socket: Socket; body: string }>((resolve, reject) => {
      const req = request(
        { port, host: '127.0.0.1', path: '/first', headers: { Connection: 'keep-alive' } },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ socket: req.socket as Socket, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(agentReply.body).toBe('ok /first');
    let keptAliveClosed = false;
    agentReply.socket.once('close', () => (keptAliveClosed = true));
    // A connection that never sends anything.
    const silent = await connected(port);
    silent.on('error', () => undefined);
    let silentClosed = false;
    const silentClose = new Promise((r) => silent.once('close', r));
    void silentClose.then(() => (silentClosed = true));

    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const stopped = shutdown.shutdown('test');
    await new Promise((r) => setTimeout(r, 300));
    expect(keptAliveClosed).toBe(true);
    // Its first request could still be on the way: not reset yet.
    expect(silentClosed).toBe(false);
    // Closed when its grace ran out, before the drain timeout (which would close every connection
    // and log a warning): the server's side closed it, so the shutdown finished.
    await stopped;
    await silentClose;
    expect(warn).not.toHaveBeenCalled();
    expect(appClosed).toBe(true);
  });
});
