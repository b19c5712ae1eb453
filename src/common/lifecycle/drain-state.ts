import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/**
 * Whether this instance is draining (SIGTERM/SIGINT received, DESIGN.md §2 "Shutdown"):
 * readiness then answers 503 so load balancers stop sending, and every response carries
 * `Connection: close` so keep-alive clients reconnect elsewhere. graceful-shutdown.ts drives it.
 */
@Injectable()
export class DrainState {
  private since: number | null = null;

  get draining(): boolean {
    return this.since !== null;
  }

  /** Starts draining (idempotent). */
  start(): void {
    this.since ??= Date.now();
  }

  /** Express middleware: while draining, each response closes its connection after it. */
  readonly middleware = (_req: Request, res: Response, next: NextFunction): void => {
    if (this.since !== null) res.setHeader('Connection', 'close');
    next();
  };
}
