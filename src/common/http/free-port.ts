import { createServer } from 'node:net';

/**
 * A TCP port free on the loopback interface right now (the OS picks it; the probe socket is
 * closed before this resolves). Another process may still take it before the caller binds.
 */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}
