import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app.config';
import { MailerService } from '../../infra/mail/mailer.service';
import type { UserEntity } from '../users/user.entity';
import { AuthTicketEntity } from './auth-ticket.entity';
import { AuthorizedIpsService } from './authorized-ips.service';
import type { IpAuthorizationPollResponse } from './auth.response';
import { EmailTokensService } from './email-tokens.service';
import { rateLimited } from './login-attempts.limiter';
import { LoginTicketsService } from './login-tickets.service';
import { maskEmail } from './origin';
import { LoginCompletion } from './login-completion.service';
import type { SessionOrigin } from './sessions.service';

export const IP_RESEND_DELAY_S = 30;
const MAX_RESENDS = 1;

/**
 * ARCHITECTURE.md §6: a user without MFA who logs in from an IP they never used must follow an e-mailed
 * link first. The 403 carries a ticket; the link marks the ticket authorized (and the IP known);
 * polling the ticket then hands out the session exactly once.
 */
@Injectable()
export class IpAuthorizationService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly tickets: LoginTicketsService,
    private readonly emailTokens: EmailTokensService,
    private readonly mailer: MailerService,
    private readonly authorizedIps: AuthorizedIpsService,
    private readonly logins: LoginCompletion,
  ) {}

  /** Whether a login from an address the user never logged in from must be authorized by e-mail. */
  applies(user: UserEntity, ip: string | null | undefined): boolean {
    return this.config.ipAuthorization && !!ip && !!user.email;
  }

  /** Opens a ticket, e-mails the link and returns the 403 to throw. */
  async challenge(user: UserEntity, origin: SessionOrigin): Promise<ApiError> {
    const email = user.email as string;
    const { ticket, token } = await this.db.transaction(async (m) => {
      const created = await this.tickets.create(user, 'ip_authorization', origin, m);
      const token = await this.emailTokens.issue(
        user.id,
        'authorize_ip',
        { ticket_id: created.entity.id },
        m,
      );
      return { ticket: created.ticket, token };
    });
    this.sendMail(user.username, email, token, origin.ip ?? null);
    return new ApiError(ErrorCode.IpAuthorizationRequired, undefined, {
      ticket,
      email: maskEmail(email),
      resend_available_in: IP_RESEND_DELAY_S,
    });
  }

  private sendMail(username: string, email: string, token: string, ip: string | null) {
    this.mailer.sendLater(email, 'authorize_ip', token, {
      username,
      lines: ip ? [`IP address: ${ip}`] : [],
    });
  }

  /** Follows the e-mailed link: authorizes the ticket's IP. */
  async authorize(token: string): Promise<void> {
    await this.db.transaction(async (m) => {
      const { data } = await this.emailTokens.consume(token, 'authorize_ip', m);
      const ticket = await m
        .getRepository(AuthTicketEntity)
        .createQueryBuilder('t')
        .where('t.id = :id', { id: data?.ticket_id })
        .andWhere('t.used_at IS NULL AND t.expires_at > now()')
        .setLock('pessimistic_write')
        .getOne();
      if (!ticket) throw new ApiError(ErrorCode.InvalidEmailToken);
      if (!ticket.authorizedAt) {
        await m.getRepository(AuthTicketEntity).update(ticket.id, { authorizedAt: new Date() });
      }
      await this.authorizedIps.record(ticket.userId, ticket.ip, m);
    });
  }

  /** `{completed:false}` until authorized; then the session, once; then 400. */
  poll(ticket: string): Promise<IpAuthorizationPollResponse> {
    return this.db.transaction(async (m) => {
      const row = await this.tickets.findLive(ticket, 'ip_authorization', m);
      if (!row) throw new ApiError(ErrorCode.InvalidIpAuthorizationTicket);
      if (!row.authorizedAt) return { completed: false };
      await m.getRepository(AuthTicketEntity).update(row.id, { usedAt: new Date() });
      // The login that the new address interrupted completes here.
      const session = await this.logins.complete(
        row.userId,
        { ip: row.ip, userAgent: row.userAgent ?? undefined },
        { method: 'ip_authorization' },
        m,
      );
      return { completed: true, ...session };
    });
  }

  /** Sends the link again: once per ticket, not before 30 s after the first mail. */
  async resend(ticket: string): Promise<void> {
    const sent = await this.db.transaction(async (m) => {
      const row = await this.tickets.findLive(ticket, 'ip_authorization', m);
      if (!row) throw new ApiError(ErrorCode.InvalidIpAuthorizationTicket);
      const now = Date.now();
      if (row.resendCount >= MAX_RESENDS) {
        throw rateLimited((row.expiresAt.getTime() - now) / 1000);
      }
      const readyAt = (row.lastSentAt ?? row.createdAt).getTime() + IP_RESEND_DELAY_S * 1000;
      if (readyAt > now) throw rateLimited((readyAt - now) / 1000);
      await m
        .getRepository(AuthTicketEntity)
        .update(row.id, { resendCount: row.resendCount + 1, lastSentAt: new Date(now) });
      const user = await m.query<Array<{ email: string; username: string }>>(
        'SELECT email, username FROM users WHERE id = $1',
        [row.userId],
      );
      const token = await this.emailTokens.issue(
        row.userId,
        'authorize_ip',
        { ticket_id: row.id },
        m,
      );
      return { ...user[0], token, ip: row.ip };
    });
    if (sent.email) this.sendMail(sent.username, sent.email, sent.token, sent.ip);
  }
}
