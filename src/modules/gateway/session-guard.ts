import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { CHANGES_CHANNEL, DatabaseNotifications } from '../../database/notifications';
import { EventLog } from '../../infra/events/event-log';
import { ApplicationFlagsReader } from '../oauth2/application-flags.port';
import { BANS_CHANNEL, IpBanGate } from '../bans/ip-ban-gate';
import { GatewayAuthenticator } from './gateway-authenticator';
import type { GatewaySession } from './gateway-session';
import { CloseCode, disallowedIntents } from './protocol';
import { SessionRegistry } from './session-registry';

/** Sessions re-checked at a time after the notification connection came back. */
const RECHECK_CONCURRENCY = 8;

/**
 * Keeps live sessions as valid as the requests on REST (ARCHITECTURE.md §7): a credential change
 * (logout, token reset, ban, application deleted — the `parley_credentials` notifications) ends
 * the sessions presenting it with 4004 on every instance; an application whose owner withdrew a
 * privileged intent it uses ends its bot's sessions with 4014; a banned address loses its
 * connections. Notifications missed while the notification connection was down cannot be known,
 * so every live session is checked again when it is back.
 */
@Injectable()
export class SessionGuard implements OnModuleInit {
  private readonly logger = new Logger('Gateway');
  private listening: boolean | null = null;

  constructor(
    private readonly notifications: DatabaseNotifications,
    private readonly registry: SessionRegistry,
    private readonly auth: GatewayAuthenticator,
    private readonly flags: ApplicationFlagsReader,
    private readonly bans: IpBanGate,
    private readonly log: EventLog,
  ) {}

  onModuleInit(): void {
    this.notifications.listen(CHANGES_CHANNEL, {
      onNotification: (tag) => this.credentialChanged(tag),
      onListening: (on) => this.listeningChanged(on),
    });
    this.notifications.listen(BANS_CHANNEL, {
      onNotification: () => this.bansChanged(),
      onListening: () => undefined,
    });
  }

  /** Sessions presenting a changed credential are checked again (`a:`: their intents too). */
  private credentialChanged(tag: string): void {
    const affected: GatewaySession[] = [];
    this.registry.forEachSession((s) => {
      if (s.identity.tags.includes(tag)) affected.push(s);
    });
    if (affected.length === 0) return;
    for (const session of affected) {
      this.check(session, tag).catch((err: Error) =>
        this.logger.warn(`re-checking a gateway session failed: ${err.message}`),
      );
    }
  }

  private async check(session: GatewaySession, tag?: string): Promise<void> {
    if (!(await this.auth.stillValid(session.identity, tag))) {
      return this.revoke(session, CloseCode.AuthenticationFailed);
    }
    const appId = session.identity.applicationId;
    if (appId && disallowedIntents(session.intents, await this.flags.flagsOf(appId)) !== 0) {
      await this.revoke(session, CloseCode.DisallowedIntents);
    }
  }

  /**
   * Ends a session — after the events committed with the change that ends it (an application
   * deleted: its bot's GUILD_DELETEs) have reached it, since the notification travels faster.
   */
  private async revoke(session: GatewaySession, code: CloseCode): Promise<void> {
    await this.log.syncCommitted().catch(() => undefined);
    if (this.registry.has(session)) this.registry.revoke(session, code);
  }

  /** Back after an outage of the notification connection: everything is checked again. */
  private listeningChanged(on: boolean): void {
    const wasDown = this.listening === false;
    this.listening = on;
    if (!on || !wasDown) return;
    const sessions: GatewaySession[] = [];
    this.registry.forEachSession((s) => sessions.push(s));
    this.logger.log(`notifications are back: re-checking ${sessions.length} gateway session(s)`);
    void this.checkAll(sessions);
    this.bansChanged();
  }

  private async checkAll(sessions: GatewaySession[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < sessions.length) {
        const session = sessions[next++];
        if (!this.registry.has(session)) continue;
        await this.check(session).catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: RECHECK_CONCURRENCY }, worker));
  }

  /** The IP ban list changed: connections from a banned address are closed with 4004. */
  private bansChanged(): void {
    this.registry.forEachConnection((conn) => {
      this.bans.check(conn.ip, (refusal) => {
        if (!refusal) return;
        if (conn.session) this.registry.revoke(conn.session, CloseCode.AuthenticationFailed);
        else conn.close(CloseCode.AuthenticationFailed);
      });
    });
  }
}
