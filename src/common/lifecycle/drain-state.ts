import { Injectable, type OnModuleDestroy } from '@nestjs/common';

/**
 * Whether this instance is draining (SIGTERM/SIGINT received, DESIGN.md §2 "Shutdown"):
 * readiness then answers 503 so load balancers stop sending, and every response carries
 * `Connection: close` (the app's onSend hook, app.setup.ts: it runs as each response is about to
 * be written, so requests already in flight are covered too) so keep-alive clients reconnect
 * elsewhere. graceful-shutdown.ts drives it;
 * `app.close()` starts it too, so a connection whose request was in flight when the app began
 * closing is not left open (the server's close waits for every connection).
 */
@Injectable()
export class DrainState implements OnModuleDestroy {
  private since: number | null = null;

  get draining(): boolean {
    return this.since !== null;
  }

  /** Starts draining (idempotent). */
  start(): void {
    this.since ??= Date.now();
  }

  onModuleDestroy(): void {
    this.start();
  }
}
