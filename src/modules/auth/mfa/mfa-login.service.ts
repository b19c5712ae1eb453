import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../../common/errors/api-error';
import { ErrorCode } from '../../../common/errors/error-code';
import type { UserEntity } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { AuthTicketEntity } from '../auth-ticket.entity';
import type { AuthTokenWithUserIdResponse } from '../auth.response';
import { LoginTicketsService } from '../login-tickets.service';
import { LoginCompletion } from '../login-completion.service';
import { SecondFactors, type SecondFactorMethod } from './second-factors';

/** Wrong codes that spend an MFA ticket (counted per ticket, not per account). */
export const MFA_TICKET_MAX_FAILURES = 5;

type Outcome =
  { kind: 'ok'; result: AuthTokenWithUserIdResponse } | { kind: 'wrong' } | { kind: 'invalid' };

/**
 * The second step of a login: a live MFA ticket plus a proof of one of the account's factors
 * gives the session. A wrong proof is counted on the ticket (committed, then 400
 * `INVALID_MFA_CODE`); at MFA_TICKET_MAX_FAILURES the ticket is spent.
 */
@Injectable()
export class MfaLoginService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly tickets: LoginTicketsService,
    private readonly users: UsersService,
    private readonly logins: LoginCompletion,
    private readonly factors: SecondFactors,
  ) {}

  /**
   * The ticket's user, for steps that prepare a proof (send an SMS code, WebAuthn options).
   * 400 `INVALID_MFA_TICKET` for an unknown, expired, used or exhausted ticket; 400
   * `MFA_METHOD_UNAVAILABLE` when the account has not enabled `method`.
   */
  async ticketUser(
    rawTicket: string,
    method: SecondFactorMethod,
    manager?: EntityManager,
  ): Promise<{ ticket: AuthTicketEntity; user: UserEntity }> {
    const ticket = await this.tickets.findLive(rawTicket, 'mfa', manager);
    if (!ticket || ticket.failedAttempts >= MFA_TICKET_MAX_FAILURES) {
      throw new ApiError(ErrorCode.InvalidMfaTicket);
    }
    const user = await this.users.findById(ticket.userId, manager);
    if (!user) throw new ApiError(ErrorCode.InvalidMfaTicket);
    if (!this.factors.methodsOf(user).includes(method)) {
      throw new ApiError(ErrorCode.MfaMethodUnavailable);
    }
    return { ticket, user };
  }

  /** Redeems the ticket with a proof of `method`: the new session, or 400. */
  async redeem(
    rawTicket: string,
    method: SecondFactorMethod,
    proof: unknown,
  ): Promise<AuthTokenWithUserIdResponse> {
    const factor = this.factors.get(method);
    if (!factor) throw new ApiError(ErrorCode.MfaMethodUnavailable);
    const outcome = await this.db.transaction(async (m): Promise<Outcome> => {
      let found: { ticket: AuthTicketEntity; user: UserEntity };
      try {
        found = await this.ticketUser(rawTicket, method, m);
      } catch (e) {
        if (e instanceof ApiError && e.code === ErrorCode.InvalidMfaTicket)
          return { kind: 'invalid' };
        throw e;
      }
      const { ticket, user } = found;
      const ok = await factor.verify({
        user,
        proof,
        context: { kind: 'login', ticketId: ticket.id },
        manager: m,
      });
      const repo = m.getRepository(AuthTicketEntity);
      if (!ok) {
        await repo.increment({ id: ticket.id }, 'failedAttempts', 1);
        return { kind: 'wrong' };
      }
      await repo.update(ticket.id, { usedAt: new Date() });
      const origin = { ip: ticket.ip, userAgent: ticket.userAgent ?? undefined };
      const result = await this.logins.complete(
        user.id,
        origin,
        { method: 'mfa', factor: method },
        m,
      );
      return { kind: 'ok', result };
    });
    if (outcome.kind === 'invalid') throw new ApiError(ErrorCode.InvalidMfaTicket);
    if (outcome.kind === 'wrong') throw new ApiError(ErrorCode.InvalidMfaCode);
    return outcome.result;
  }
}
