import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { DrainState } from '../../common/lifecycle/drain-state';
import { AppConfig } from '../../config/app.config';
import { EventLog } from '../../infra/events/event-log';
import { Checkpointer, CHECKPOINT_MS } from './checkpointer';
import { GatewayUpgrade } from './gateway-upgrade';
import { CloseCode, Op } from './protocol';
import { SessionRegistry } from './session-registry';

const SWEEP_MS = 2_000;
/** After op 7 Reconnect on shutdown, connections still open are closed (resumable) after this. */
const RECONNECT_GRACE_MS = 1_000;

/**
 * The real-time gateway (Discord Gateway v10, DESIGN.md §4 "Gateway") on the API's own port: its
 * life cycle. It attaches the upgrade (GatewayUpgrade) to the server the HTTP adapter exposes
 * (Express or Fastify alike), runs the sweeps (heartbeats, identify deadline, expired sessions)
 * and the checkpoints, ends every session with op 9 when the event log lost events, and on drain
 * tells every client to reconnect elsewhere (op 7). The state is SessionRegistry's; each opcode
 * has its handler (opcodes/); events are routed by GatewayDispatcher.
 */
@Injectable()
export class GatewayServer implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Gateway');
  private server: Server | null = null;
  private timers: NodeJS.Timeout[] = [];
  private stopGapWatch: (() => void) | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly drain: DrainState,
    private readonly log: EventLog,
    private readonly registry: SessionRegistry,
    private readonly upgrade: GatewayUpgrade,
    private readonly checkpointer: Checkpointer,
  ) {}

  onModuleInit(): void {
    this.drain.onStart(() => this.reconnectAll());
  }

  onApplicationBootstrap(): void {
    // The operator CLI boots the app without an HTTP server.
    const adapter = this.adapterHost.httpAdapter as typeof this.adapterHost.httpAdapter | null;
    if (!adapter) return;
    this.stopGapWatch = this.log.onGap(() => this.registry.invalidateAll());
    this.server = adapter.getHttpServer() as Server;
    this.server.on('upgrade', this.upgrade.onUpgrade);
    const { heartbeatIntervalMs, identifyTimeoutMs } = this.config.gateway;
    this.every(SWEEP_MS, () => this.registry.sweep(heartbeatIntervalMs, identifyTimeoutMs));
    this.every(CHECKPOINT_MS, () => void this.checkpointer.run());
  }

  onApplicationShutdown(): void {
    this.upgrade.stop();
    this.stopGapWatch?.();
    this.server?.off('upgrade', this.upgrade.onUpgrade);
    for (const timer of this.timers) clearInterval(timer);
    this.registry.terminateAll();
  }

  /** What this instance holds (diagnostics and the leak checks of the robustness tests). */
  stats(): ReturnType<SessionRegistry['stats']> {
    return this.registry.stats();
  }

  private every(ms: number, run: () => void): void {
    const timer = setInterval(run, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Draining: every client is told to reconnect (op 7), then what is still open is closed. */
  private reconnectAll(): void {
    const count = this.registry.connectionCount;
    if (count === 0) return;
    this.logger.log(`draining: op 7 Reconnect to ${count} gateway connection(s)`);
    this.registry.forEachConnection((conn) => conn.sendOp(Op.Reconnect, null));
    setTimeout(() => {
      this.registry.forEachConnection((conn) => conn.close(CloseCode.UnknownError));
    }, RECONNECT_GRACE_MS).unref();
  }
}
