import { Injectable } from '@nestjs/common';
import type { GatewayConnection } from '../gateway-connection';
import { Op } from '../protocol';

/** Op 1 Heartbeat: the client is alive, and acknowledges the dispatches up to `d`. */
@Injectable()
export class HeartbeatHandler {
  handle(conn: GatewayConnection, d: unknown, now: number): void {
    conn.lastHeartbeat = now;
    if (typeof d === 'number' && conn.session) conn.session.acknowledged(d);
    conn.sendOp(Op.HeartbeatAck, null);
  }
}
