import { AuthMaintenance } from './auth-maintenance';
import { AuthDiscovery } from './auth-discovery';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '../../infra/mail/mail.module';
import { UsersModule } from '../users/users.module';
import { AuditModule } from '../audit/audit.module';
import { BanChecksModule } from '../bans/ban-checks.module';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
import { AuthTicketEntity } from './auth-ticket.entity';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AuthorizedIpEntity } from './authorized-ip.entity';
import { AuthorizedIpsService } from './authorized-ips.service';
import { EmailFlowsService } from './email-flows.service';
import { EmailTokenEntity } from './email-token.entity';
import { EmailTokensService } from './email-tokens.service';
import { HandoffEntity } from './handoff.entity';
import { HandoffService } from './handoff.service';
import { IpAuthorizationService } from './ip-authorization.service';
import { LoginAttemptsLimiter } from './login-attempts.limiter';
import { LoginCompletion } from './login-completion.service';
import { LoginTicketsService } from './login-tickets.service';
import { PasswordService } from './password.service';
import { SessionEntity } from './session.entity';
import { SessionsService } from './sessions.service';
import { UsernameSuggestionsService } from './username-suggestions.service';
import { MfaFactorsService } from './mfa/mfa-factors.service';
import { MfaLoginService } from './mfa/mfa-login.service';
import { ReauthService } from './mfa/reauth.service';
import { SecondFactors } from './mfa/second-factors';

@Module({
  imports: [
    UsersModule,
    MailModule,
    AuditModule,
    BanChecksModule,
    TypeOrmModule.forFeature([
      SessionEntity,
      EmailTokenEntity,
      AuthTicketEntity,
      AuthorizedIpEntity,
      HandoffEntity,
    ]),
  ],
  controllers: [AuthController, AccountController],
  providers: [
    AuthMaintenance,
    AuthDiscovery,
    AuthService,
    AuthorizedIpsService,
    AccountService,
    EmailFlowsService,
    EmailTokensService,
    HandoffService,
    IpAuthorizationService,
    LoginAttemptsLimiter,
    LoginCompletion,
    LoginTicketsService,
    PasswordService,
    SessionsService,
    UsernameSuggestionsService,
    SecondFactors,
    MfaFactorsService,
    MfaLoginService,
    ReauthService,
  ],
  exports: [
    PasswordService,
    SessionsService,
    LoginTicketsService,
    EmailTokensService,
    LoginCompletion,
    SecondFactors,
    MfaFactorsService,
    MfaLoginService,
    ReauthService,
  ],
})
export class AuthModule {}
