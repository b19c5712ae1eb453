import { createServer } from 'node:net';

// Below Linux's ephemeral range (32768–60999 by default), so no outgoing connection of another
// test can be handed the port while a spawned server is still booting.
const FIRST = 20_000;
const LAST = 32_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const srv = createServer();
    srv.once('error', () => done(false));
    srv.listen(port, '0.0.0.0', () => srv.close(() => done(true)));
  });
}

/**
 * A port for a server that a test starts and that binds it only seconds later (a separately
 * started process waiting for its database): free now, and outside the range the OS hands out
 * to outgoing connections, which `freePort()` (port 0) is not.
 */
export async function serverPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${FIRST} and ${LAST}`);
}
