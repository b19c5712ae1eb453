import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (PostgreSQL in the outage tests): the app connects through it,
 * and `outage()` makes the server vanish — every proxied connection is destroyed and new ones
 * are refused (the listener is closed) — until `restore()` listens on the same port again.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Connections accepted so far (each paired with one to the target). */
  connections = 0;
  /** Answers swallowed by `dropAnswerTo` so far. */
  dropped = 0;
  private armed: Buffer | null = null;

  private constructor(
    private readonly target: { host: string; port: number },
    private listenPort: number,
  ) {}

  /** Starts proxying `127.0.0.1:<port>` (0 = a free port) to `target`. */
  static async start(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, port);
    await proxy.restore();
    return proxy;
  }

  get port(): number {
    return this.listenPort;
  }

  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.listenPort);
    return u.toString();
  }

  /** Destroys every proxied connection and refuses new ones. */
  async outage(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((done) => server.close(() => done()));
  }

  /** Accepts and proxies connections again, on the same port. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.pipe(client));
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(this.listenPort, '127.0.0.1', () => {
        server.removeListener('error', fail);
        done();
      });
    });
    this.listenPort = (server.address() as { port: number }).port;
    this.server = server;
  }

  /**
   * The next request whose bytes contain `pattern` reaches the server, and its connection is cut
   * when the answer starts to come back — the answer never reaches the client (a connection lost
   * while the server committed: an ambiguous commit). Once.
   */
  dropAnswerTo(pattern: Buffer): void {
    this.armed = pattern;
  }

  async close(): Promise<void> {
    await this.outage();
  }

  private pipe(client: Socket): void {
    this.connections += 1;
    const upstream = connect(this.target.port, this.target.host);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      s.on('close', () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    let doomed = false;
    client.on('data', (chunk: Buffer) => {
      if (this.armed && chunk.includes(this.armed)) {
        this.armed = null;
        doomed = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!doomed) {
        client.write(chunk);
        return;
      }
      this.dropped += 1;
      client.destroy();
      upstream.destroy();
    });
  }
}
