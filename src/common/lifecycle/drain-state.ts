import { Injectable, type OnModuleDestroy } from '@nestjs/common';

/**
 * Whether this instance is draining (SIGTERM/SIGINT received, DESIGN.md §2 "Shutdown"):
 * readiness then answers 503 so load balancers stop sending, and every response carries
 * `Connection: close` (the HTTP platform's response hook, common/http/platform: it runs as each
 * response is about to be written, so requests already in flight are covered too) so keep-alive
 * clients reconnect elsewhere. graceful-shutdown.ts drives it;
 * `app.close()` starts it too, so a connection whose request was in flight when the app began
 * closing is not left open (the server's close waits for every connection).
 */
@Injectable()
export class DrainState implements OnModuleDestroy {
  private since: number | null = null;
  private readonly listeners: Array<() => void> = [];

  get draining(): boolean {
    return this.since !== null;
  }

  /** Starts draining (idempotent); tells the listeners the first time. */
  start(): void {
    if (this.since !== null) return;
    this.since = Date.now();
    for (const listener of this.listeners.splice(0)) listener();
  }

  /**
   * Calls `listener` when draining starts: what holds long-lived connections (the gateway) tells
   * its clients to go elsewhere before the listener closes.
   */
  onStart(listener: () => void): void {
    if (this.since !== null) listener();
    else this.listeners.push(listener);
  }

  onModuleDestroy(): void {
    this.start();
  }
}
