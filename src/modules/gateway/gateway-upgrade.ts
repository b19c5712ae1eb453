import { ZSTD_AVAILABLE } from './zstd-stream';
import type { Compression } from './gateway-connection';
import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { HttpPlatform } from '../../common/http/platform/http-platform';
import { DrainState } from '../../common/lifecycle/drain-state';
import { AppConfig } from '../../config/app.config';
import { IpBanGate } from '../bans/ip-ban-gate';
import { FrameRouter } from './frame-router';
import { GatewayLimits } from './gateway-limits';
import { CloseCode, Op, SUPPORTED_VERSIONS } from './protocol';
import { SessionRegistry } from './session-registry';

/** Where the gateway listens on the API's port (`/gateway/` too). */
export const GATEWAY_PATH = '/gateway';

/**
 * The HTTP upgrade to a gateway connection and the connection's first steps. An upgrade is
 * refused, before any WebSocket exists, when the path is not the gateway's (404), it asks for an
 * encoding other than JSON (400, saying so: ETF is not spoken), the instance
 * is draining or full (503), its client address — the same as the HTTP routes see
 * (HttpPlatform.clientAddressOf) — holds too many connections or upgraded too often, or failed
 * to identify too often (429), or is banned (403). An accepted connection is told Hello and must
 * identify within GATEWAY_IDENTIFY_TIMEOUT_MS (SessionRegistry.sweep).
 */
@Injectable()
export class GatewayUpgrade {
  private readonly logger = new Logger('Gateway');
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    // Frames over 4,096 bytes are refused with 4002 by the router; far larger ones never reach it.
    maxPayload: 64 * 1024,
    clientTracking: false,
  });
  private stopping = false;

  constructor(
    private readonly config: AppConfig,
    private readonly platform: HttpPlatform,
    private readonly drain: DrainState,
    private readonly bans: IpBanGate,
    private readonly limits: GatewayLimits,
    private readonly registry: SessionRegistry,
    private readonly router: FrameRouter,
  ) {}

  stop(): void {
    this.stopping = true;
  }

  readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const path = url.pathname;
    if (path !== GATEWAY_PATH && path !== `${GATEWAY_PATH}/`) return refuse(socket, 404);
    // An encoding this gateway does not speak is refused before the upgrade, saying why: a close
    // code after Hello (4002) is one clients reconnect on, forever.
    const encoding = url.searchParams.get('encoding');
    if (encoding !== null && encoding !== 'json') {
      return refuse(
        socket,
        400,
        `encoding=${encoding.slice(0, 20)} is not supported: use encoding=json`,
      );
    }
    if (this.stopping || this.drain.draining) return refuse(socket, 503);
    const { maxConnections, maxConnectionsPerAddress } = this.config.gateway;
    if (maxConnections > 0 && this.registry.connectionCount >= maxConnections) {
      return refuse(socket, 503);
    }
    const ip = this.platform.clientAddressOf(req);
    if (this.registry.connectionsFrom(ip) >= maxConnectionsPerAddress) return refuse(socket, 429);
    this.bans.check(ip, (refusal) => {
      if (refusal) return refuse(socket, 403);
      this.checkRates(ip)
        .then((ok) => {
          if (!ok) return refuse(socket, 429);
          if (socket.destroyed) return;
          this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, ip, url));
        })
        .catch((err: Error) => {
          this.logger.warn(`gateway upgrade failed: ${err.message}`);
          refuse(socket, 503);
        });
    });
  };

  private async checkRates(ip: string): Promise<boolean> {
    if (!(await this.limits.upgrade(ip))) return false;
    return !(await this.limits.failingTooOften(ip));
  }

  /**
   * zlib-stream, and zstd-stream where the runtime has zstd (Node 20 has not), when compression
   * is enabled; anything else (an unknown value, zstd on Node 20) gets uncompressed text frames,
   * which clients read as such — never a close they would retry.
   */
  private compressionFor(asked: string | null): Compression {
    if (!this.config.gateway.compression) return null;
    if (asked === 'zlib-stream') return 'zlib-stream';
    if (asked === 'zstd-stream' && ZSTD_AVAILABLE) return 'zstd-stream';
    return null;
  }

  private accept(ws: WebSocket, ip: string, url: URL): void {
    const conn = this.registry.open(ws, ip, this.compressionFor(url.searchParams.get('compress')));
    ws.on('error', () => undefined);
    ws.on('close', (code: number) => this.registry.closed(conn, code));
    const version = url.searchParams.get('v');
    if (version !== null && !SUPPORTED_VERSIONS.has(version)) {
      return conn.close(CloseCode.InvalidAPIVersion);
    }
    ws.on('message', (data: RawData, isBinary: boolean) =>
      this.router.onFrame(conn, data, isBinary),
    );
    conn.sendOp(Op.Hello, { heartbeat_interval: this.config.gateway.heartbeatIntervalMs });
    this.logger.log({ msg: 'gateway connection opened', ip, compress: conn.compressed });
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

function refuse(socket: Duplex, status: number, reason = ''): void {
  const retry = status === 429 || status === 503 ? 'Retry-After: 5\r\n' : '';
  const body = reason ? `${reason}\n` : '';
  const type = body ? 'Content-Type: text/plain; charset=utf-8\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${retry}${type}Connection: close\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
