import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { randomToken, sha256 } from '../../common/crypto/tokens';
import { SnowflakeService } from '../../common/snowflake/snowflake.service';
import { maskPhone } from '../users/user.mapper';
import type { UserEntity } from '../users/user.entity';
import { AuthTicketEntity, type AuthTicketKind } from './auth-ticket.entity';
import type { AuthMfaRequiredResponse } from './auth.response';
import type { SessionOrigin } from './sessions.service';
import { SecondFactors } from './mfa/second-factors';

export const MFA_TICKET_TTL_MS = 5 * 60_000;
export const IP_TICKET_TTL_MS = 15 * 60_000;

const TICKET_RE = /^[A-Za-z0-9_-]{43}$/;

/** Tickets of half-finished logins, stored as SHA-256 (the MFA endpoints consume `mfa` ones). */
@Injectable()
export class LoginTicketsService {
  constructor(
    @InjectRepository(AuthTicketEntity) private readonly tickets: Repository<AuthTicketEntity>,
    private readonly snowflakes: SnowflakeService,
    private readonly factors: SecondFactors,
  ) {}

  repo(manager?: EntityManager): Repository<AuthTicketEntity> {
    return manager ? manager.getRepository(AuthTicketEntity) : this.tickets;
  }

  async create(
    user: UserEntity,
    kind: AuthTicketKind,
    origin: SessionOrigin,
    manager?: EntityManager,
  ): Promise<{ ticket: string; entity: AuthTicketEntity }> {
    const ticket = randomToken(32);
    const entity = this.repo(manager).create({
      id: this.snowflakes.next(),
      userId: user.id,
      kind,
      ticketHash: sha256(ticket),
      ip: origin.ip ?? null,
      userAgent: origin.userAgent?.slice(0, 512) ?? null,
      expiresAt: new Date(Date.now() + (kind === 'mfa' ? MFA_TICKET_TTL_MS : IP_TICKET_TTL_MS)),
      authorizedAt: null,
      usedAt: null,
      lastSentAt: kind === 'mfa' ? null : new Date(),
      resendCount: 0,
    });
    await this.repo(manager).insert(entity);
    return { ticket, entity };
  }

  /** A live (unexpired, unused) ticket of this kind, locked for update when a manager is given. */
  async findLive(
    ticket: string,
    kind: AuthTicketKind,
    manager?: EntityManager,
  ): Promise<AuthTicketEntity | null> {
    if (!TICKET_RE.test(ticket)) return null;
    const qb = this.repo(manager)
      .createQueryBuilder('t')
      .where('t.ticket_hash = :hash AND t.kind = :kind', { hash: sha256(ticket), kind })
      .andWhere('t.used_at IS NULL AND t.expires_at > now()');
    if (manager) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  /** Login's answer for an account with a second factor. */
  async mfaRequired(
    user: UserEntity,
    origin: SessionOrigin,
    manager?: EntityManager,
  ): Promise<AuthMfaRequiredResponse> {
    const { ticket } = await this.create(user, 'mfa', origin, manager);
    const allowed: string[] = this.factors.methodsOf(user);
    const sms = allowed.includes('sms');
    return {
      mfa: true,
      ticket,
      allowed_methods: allowed,
      totp: allowed.includes('totp'),
      sms,
      webauthn: allowed.includes('webauthn'),
      sms_phone_hint: sms ? maskPhone(user.phone) : null,
    };
  }
}
