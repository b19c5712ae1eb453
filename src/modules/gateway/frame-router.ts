import { Injectable, Logger } from '@nestjs/common';
import type { RawData } from 'ws';
import { PresenceUpdateDto } from './dto/presence-update.dto';
import { validatePayload } from './dto/validate-payload';
import type { GatewayConnection } from './gateway-connection';
import type { GatewaySession } from './gateway-session';
import { PresenceService } from './presence.service';
import { HeartbeatHandler } from './opcodes/heartbeat.handler';
import { IdentifyHandler } from './opcodes/identify.handler';
import { RequestGuildMembersHandler } from './opcodes/request-guild-members.handler';
import { ResumeHandler } from './opcodes/resume.handler';
import { quoteUnsafeIntegers } from '../../common/http/json-limits';
import {
  CLIENT_FRAME_WINDOW_MS,
  CLIENT_FRAMES_PER_WINDOW,
  CloseCode,
  MAX_CLIENT_FRAME_BYTES,
  Op,
} from './protocol';

/** A digit run long enough to be beyond 2^53 (only then is the text rewritten before parsing). */
const LONG_DIGITS = /\d{16}/;

/**
 * What a client sends, frame by frame: the frame budget (4008), size and encoding (4002), then
 * one handler per opcode. Before a session exists only heartbeats, identify and resume are
 * accepted (4003 otherwise); a second identify or resume is 4005.
 */
@Injectable()
export class FrameRouter {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly heartbeat: HeartbeatHandler,
    private readonly identify: IdentifyHandler,
    private readonly resume: ResumeHandler,
    private readonly requestMembers: RequestGuildMembersHandler,
    private readonly presences: PresenceService,
  ) {}

  onFrame(conn: GatewayConnection, data: RawData, isBinary: boolean): void {
    if (!conn.open) return;
    const now = Date.now();
    if (now - conn.windowStart >= CLIENT_FRAME_WINDOW_MS) {
      conn.windowStart = now;
      conn.framesInWindow = 0;
    }
    conn.framesInWindow += 1;
    if (conn.framesInWindow > CLIENT_FRAMES_PER_WINDOW) return conn.close(CloseCode.RateLimited);
    const buf = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    if (isBinary || buf.length > MAX_CLIENT_FRAME_BYTES) return conn.close(CloseCode.DecodeError);
    let frame: { op?: unknown; d?: unknown };
    try {
      // discord.py sends op 8's guild_id as a JSON number beyond 2^53: kept as a string.
      const text = buf.toString('utf8');
      frame = JSON.parse(LONG_DIGITS.test(text) ? quoteUnsafeIntegers(text) : text) as typeof frame;
    } catch {
      return conn.close(CloseCode.DecodeError);
    }
    if (frame === null || typeof frame !== 'object' || typeof frame.op !== 'number') {
      return conn.close(CloseCode.DecodeError);
    }
    switch (frame.op as Op) {
      case Op.Heartbeat:
        return this.heartbeat.handle(conn, frame.d, now);
      case Op.Identify:
        return this.authenticate(conn, 'identify', () => this.identify.handle(conn, frame.d));
      case Op.Resume:
        return this.authenticate(conn, 'resume', () => this.resume.handle(conn, frame.d));
      case Op.RequestGuildMembers:
        if (!conn.session) return conn.close(CloseCode.NotAuthenticated);
        return this.requestMembers.handle(conn, conn.session, frame.d);
      case Op.PresenceUpdate:
        if (!conn.session) return conn.close(CloseCode.NotAuthenticated);
        return this.presenceUpdate(conn, conn.session, frame.d);
      case Op.VoiceStateUpdate:
        // Accepted and ignored: Parley has no voice.
        if (!conn.session) return conn.close(CloseCode.NotAuthenticated);
        return;
      default:
        return conn.close(CloseCode.UnknownOpcode);
    }
  }

  /** Op 3: the session's presence (4002 when it does not validate). */
  private presenceUpdate(conn: GatewayConnection, session: GatewaySession, d: unknown): void {
    const checked = validatePayload(PresenceUpdateDto, d, {});
    if (!checked.ok) return conn.close(checked.close);
    this.presences.changed(session, checked.value).catch((err: unknown) => {
      this.logger.error(`presence update failed: ${(err as Error).message}`);
    });
  }

  /** Identify and resume: one at a time per connection, never after a session started. */
  private authenticate(conn: GatewayConnection, what: string, run: () => Promise<void>): void {
    if (conn.session || conn.authenticating) return conn.close(CloseCode.AlreadyAuthenticated);
    conn.authenticating = true;
    run()
      .catch((err: unknown) => {
        this.logger.error(`gateway ${what} failed: ${(err as Error).message}`);
        conn.close(CloseCode.UnknownError);
      })
      .finally(() => (conn.authenticating = false));
  }
}
