import { INestApplication, Logger } from '@nestjs/common';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DrainState } from './drain-state';
import { withTimeout } from './with-timeout';
import { tracing } from '../../infra/tracing/trace-hooks';

export interface ShutdownOptions {
  /** How long to keep accepting and serving after the signal, readiness already answering 503. */
  graceMs: number;
  /** Bound on in-flight requests finishing once the listener is closed (and on app.close()). */
  timeoutMs: number;
}

// Node sets `_httpMessage` on a socket while a response is being served on it (http-terminator
// and stoppable read it too); it is how a response already in flight is found without tracking
// every request.
type ServingSocket = Socket & { _httpMessage?: ServerResponse | null };

const SWEEP_MS = 250;
/**
 * A connection accepted just before the listener closed has its first request on the way: it is
 * given this long to arrive (and be served, with `Connection: close`) before it counts as idle.
 */
const FIRST_REQUEST_GRACE_MS = 2_000;

interface SocketState {
  acceptedAt: number;
  /** A request was read on it: between requests it is an idle keep-alive connection. */
  served: boolean;
}

/**
 * Stops a listening app without resetting a request (DESIGN.md §2 "Shutdown"):
 * 1. on SIGTERM/SIGINT, readiness answers 503 at once and every response (those in flight too,
 *    unless their headers are out) carries `Connection: close`;
 * 2. for `graceMs` the server keeps accepting and serving, while load balancers notice;
 * 3. then it stops accepting, closes idle keep-alive sockets and waits up to `timeoutMs` for
 *    the requests in flight (each connection closes after its response); a connection accepted
 *    moments before, whose first request is still on the way, is served, and one that sends
 *    nothing is closed after FIRST_REQUEST_GRACE_MS;
 * 4. only then it closes the Nest app — the pool, the embedded PostgreSQL, Redis — and exits 0.
 * A second signal exits at once (1). Nest's own signal hooks (enableShutdownHooks) are not used:
 * they would close the app, and the database under the requests, straight away.
 */
export class GracefulShutdown {
  private readonly logger = new Logger('Shutdown');
  private readonly sockets = new Map<ServingSocket, SocketState>();
  private stopping = false;

  constructor(
    private readonly app: INestApplication,
    private readonly server: Server,
    private readonly drain: DrainState,
    private readonly options: ShutdownOptions,
    private readonly exit: (code: number) => void = (code) => process.exit(code),
  ) {
    server.on('connection', (socket: Socket) => {
      this.sockets.set(socket, { acceptedAt: Date.now(), served: false });
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: { socket: Socket }) => {
      const state = this.sockets.get(req.socket);
      if (state) state.served = true;
    });
  }

  /** Handles SIGTERM and SIGINT from now on. */
  listen(): this {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => this.onSignal(signal));
    }
    return this;
  }

  private onSignal(signal: string): void {
    if (this.stopping) {
      this.logger.warn(`${signal} while shutting down: exiting without waiting`);
      this.exit(1);
      return;
    }
    this.stopping = true;
    this.shutdown(signal)
      // The spans of the last requests (tracing on), at most a few seconds' wait.
      .then(() => flushTraces())
      .then(
        () => this.exit(0),
        (err: unknown) => {
          this.logger.error(`shutdown failed: ${(err as Error).message}`);
          this.exit(1);
        },
      );
  }

  /** The whole sequence; resolves once the app is closed. */
  async shutdown(reason: string): Promise<void> {
    const { graceMs, timeoutMs } = this.options;
    this.drain.start();
    this.closeAfterCurrentResponses();
    this.logger.log(
      `${reason}: readiness answers 503; serving ${graceMs} ms more, then draining (at most ${timeoutMs} ms)`,
    );
    if (graceMs > 0) await sleep(graceMs);

    // Closes the idle keep-alive connections too; a connection accepted moments ago whose first
    // request has not been read yet is not idle to Node, and is served (with Connection: close).
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.closeIdleConnections();
    this.logger.log(
      `stopped accepting connections; waiting for the requests on ${this.sockets.size} open connection(s)`,
    );
    // A response whose headers were out before draining began kept its connection alive: close
    // such sockets once idle, and a connection that never sent a request once its grace is over
    // (Node's headers timeout no longer runs after close(); the drain would wait for its timeout).
    const sweep = setInterval(() => this.closeIdleConnections(), SWEEP_MS);
    try {
      await withTimeout(closed, timeoutMs);
    } catch {
      this.logger.warn(
        `${this.sockets.size} connection(s) still open after ${timeoutMs} ms: closing them`,
      );
      this.server.closeAllConnections();
    } finally {
      clearInterval(sweep);
    }
    this.logger.log('all requests finished; closing the application');
    await withTimeout(this.app.close(), timeoutMs);
    this.logger.log('stopped');
  }

  /**
   * Destroys the connections with no response in progress that have served a request (idle
   * keep-alive) or were accepted more than FIRST_REQUEST_GRACE_MS ago without sending one.
   */
  private closeIdleConnections(): void {
    const now = Date.now();
    for (const [socket, state] of this.sockets) {
      if (socket._httpMessage) continue;
      if (state.served || now - state.acceptedAt >= FIRST_REQUEST_GRACE_MS) socket.destroy();
    }
  }

  private closeAfterCurrentResponses(): void {
    for (const socket of this.sockets.keys()) {
      const res = socket._httpMessage;
      if (res && !res.headersSent) res.setHeader('Connection', 'close');
    }
  }
}

/**
 * Until the server listens, a signal just exits (after the 'exit' hooks, which stop an embedded
 * PostgreSQL): there is nothing to drain. Returns the function that removes these handlers.
 */
export function exitOnSignalUntilListening(
  log: (message: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  const handler = (signal: NodeJS.Signals) => {
    log(`${signal} before the server was listening: exiting`);
    exit(0);
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.removeListener('SIGTERM', handler);
    process.removeListener('SIGINT', handler);
  };
}

/** Sends the spans still buffered when tracing is on; never waits more than 3 s. */
async function flushTraces(): Promise<void> {
  const hooks = tracing.hooks;
  if (!hooks) return;
  await Promise.race([
    hooks.flush().catch(() => undefined),
    new Promise((r) => setTimeout(r, 3_000).unref()),
  ]);
}
