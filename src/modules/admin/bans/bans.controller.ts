import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { ApiErrors } from '../../../common/openapi/api-errors.decorator';
import { CurrentCaller } from '../../../common/auth/auth.decorator';
import type { AdminCaller } from '../../../common/auth/caller';
import { RequestAudit, type AuditContext } from '../../audit/audit-context';
import { AdminAcl } from '../acls';
import { AdminRoute } from '../admin-route.decorator';
import { BanEmailRequest, BanIpRequest, BanPhoneRequest, ListBansRequest } from './ban.dto';
import {
  BanCheckResponseSchema,
  ListEmailBansResponseSchema,
  ListIpBansResponseSchema,
  ListPhoneBansResponseSchema,
} from './ban.response';
import { AdminBansService } from './bans.service';

const ONE_OR_MANY = 'Give one value or a list of at most 100 (not both).';

const EMAIL_BODY = {
  type: BanEmailRequest,
  examples: {
    one: { summary: 'One address', value: { email: 'spammer@example.com' } },
    several: {
      summary: 'Several addresses',
      value: { emails: ['spammer@example.com', 'bot-farm@example.net'] },
    },
  },
};
const IP_BODY = {
  type: BanIpRequest,
  examples: {
    one: { summary: 'One address', value: { ip: '203.0.113.7' } },
    range: { summary: 'A range (CIDR)', value: { ip: '203.0.113.0/24' } },
    several: {
      summary: 'Several, ending their sessions (add only)',
      value: { ips: ['198.51.100.23', '2001:db8:42::/64'], retroactive: true },
    },
  },
};
const PHONE_BODY = {
  type: BanPhoneRequest,
  examples: {
    one: { summary: 'One number (E.164)', value: { phone: '+14155550123' } },
    several: { summary: 'Several numbers', value: { phones: ['+14155550123', '+442071838750'] } },
  },
};
const LIST_BODY = {
  type: ListBansRequest,
  examples: {
    first: { summary: 'First page', value: { limit: 50 } },
    next: { summary: 'Next page', value: { limit: 50, cursor: '1300000000000000000' } },
  },
};

@ApiTags('Admin')
@Controller('admin/bans')
export class AdminBansController {
  constructor(private readonly bans: AdminBansService) {}

  // ---- e-mail --------------------------------------------------------------------------------

  @Post('email/add')
  @HttpCode(204)
  @AdminRoute({
    operationId: 'add_email_ban',
    body: EMAIL_BODY,
    summary: 'Ban e-mail addresses from registration and e-mail change',
    acl: AdminAcl.BanEmailAdd,
    bucket: 'admin:bans',
    audited: true,
    description: `${ONE_OR_MANY} Idempotent.`,
  })
  @ApiNoContentResponse({ description: 'Banned.' })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['email', FieldErrorCode.InvalidEmail],
    ['emails.0', FieldErrorCode.InvalidEmail],
  )
  addEmail(
    @CurrentCaller() caller: AdminCaller,
    @Body() dto: BanEmailRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.bans.addEmails(caller, dto, audit);
  }

  @Post('email/check')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'check_email_ban_status',
    body: EMAIL_BODY,
    summary: 'Check whether e-mail addresses are banned',
    acl: AdminAcl.BanEmailCheck,
    bucket: 'admin:bans',
    description: ONE_OR_MANY,
  })
  @ApiOkResponse({
    type: BanCheckResponseSchema,
    description: 'One result per value: whether a ban covers it.',
  })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['email', FieldErrorCode.InvalidEmail],
    ['emails.0', FieldErrorCode.InvalidEmail],
  )
  checkEmail(@Body() dto: BanEmailRequest): Promise<BanCheckResponseSchema> {
    return this.bans.checkEmails(dto);
  }

  @Post('email/list')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'list_email_bans',
    body: LIST_BODY,
    summary: 'List e-mail bans, newest first',
    acl: AdminAcl.BanEmailCheck,
    bucket: 'admin:bans',
  })
  @ApiOkResponse({
    type: ListEmailBansResponseSchema,
    description: 'A page of e-mail bans and the next cursor.',
  })
  listEmail(@Body() dto: ListBansRequest): Promise<ListEmailBansResponseSchema> {
    return this.bans.listEmails(dto);
  }

  @Post('email/remove')
  @HttpCode(204)
  @AdminRoute({
    operationId: 'remove_email_ban',
    body: EMAIL_BODY,
    summary: 'Lift e-mail bans',
    acl: AdminAcl.BanEmailRemove,
    bucket: 'admin:bans',
    audited: true,
    description: `${ONE_OR_MANY} Idempotent.`,
  })
  @ApiNoContentResponse({ description: 'Lifted.' })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['email', FieldErrorCode.InvalidEmail],
    ['emails.0', FieldErrorCode.InvalidEmail],
  )
  removeEmail(@Body() dto: BanEmailRequest, @RequestAudit() audit: AuditContext): Promise<void> {
    return this.bans.removeEmails(dto, audit);
  }

  // ---- IP ------------------------------------------------------------------------------------

  @Post('ip/add')
  @HttpCode(204)
  @AdminRoute({
    operationId: 'add_ip_ban',
    body: IP_BODY,
    summary: 'Ban IP addresses or CIDR ranges from every route',
    acl: AdminAcl.BanIpAdd,
    bucket: 'admin:bans',
    audited: true,
    description:
      `${ONE_OR_MANY} Requests from a banned address get 403 \`IP_BANNED\` on every route, on ` +
      'every instance within a second. `retroactive: true` also ends the sessions last used ' +
      'from a banned address. Reverse DNS names of single addresses are looked up (bounded) ' +
      'and stored. Idempotent.',
  })
  @ApiNoContentResponse({ description: 'Banned.' })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['ip', FieldErrorCode.InvalidIp],
    ['ips.0', FieldErrorCode.InvalidIp],
  )
  addIp(
    @CurrentCaller() caller: AdminCaller,
    @Body() dto: BanIpRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.bans.addIps(caller, dto, audit);
  }

  @Post('ip/check')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'check_ip_ban_status',
    body: IP_BODY,
    summary: 'Check whether IP addresses or ranges are banned',
    acl: AdminAcl.BanIpCheck,
    bucket: 'admin:bans',
    description: `${ONE_OR_MANY} Each result names the ban that covers the value (\`range\`).`,
  })
  @ApiOkResponse({
    type: BanCheckResponseSchema,
    description: 'One result per value: whether a ban covers it.',
  })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['ip', FieldErrorCode.InvalidIp],
    ['ips.0', FieldErrorCode.InvalidIp],
  )
  checkIp(@Body() dto: BanIpRequest): Promise<BanCheckResponseSchema> {
    return this.bans.checkIps(dto);
  }

  @Post('ip/list')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'list_ip_bans',
    body: LIST_BODY,
    summary: 'List IP bans, newest first, with reverse DNS names',
    acl: AdminAcl.BanIpCheck,
    bucket: 'admin:bans',
  })
  @ApiOkResponse({
    type: ListIpBansResponseSchema,
    description: 'A page of IP bans and the next cursor.',
  })
  listIp(@Body() dto: ListBansRequest): Promise<ListIpBansResponseSchema> {
    return this.bans.listIps(dto);
  }

  @Post('ip/remove')
  @HttpCode(204)
  @AdminRoute({
    operationId: 'remove_ip_ban',
    body: IP_BODY,
    summary: 'Lift IP bans',
    acl: AdminAcl.BanIpRemove,
    bucket: 'admin:bans',
    audited: true,
    description:
      `${ONE_OR_MANY} Removes bans on exactly these addresses or ranges (a wider ban that ` +
      'covers an address stays). Idempotent.',
  })
  @ApiNoContentResponse({ description: 'Lifted.' })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['ip', FieldErrorCode.InvalidIp],
    ['ips.0', FieldErrorCode.InvalidIp],
  )
  removeIp(@Body() dto: BanIpRequest, @RequestAudit() audit: AuditContext): Promise<void> {
    return this.bans.removeIps(dto, audit);
  }

  // ---- phone ---------------------------------------------------------------------------------

  @Post('phone/add')
  @HttpCode(204)
  @AdminRoute({
    operationId: 'add_phone_ban',
    body: PHONE_BODY,
    summary: 'Ban phone numbers from verification and SMS',
    acl: AdminAcl.BanPhoneAdd,
    bucket: 'admin:bans',
    audited: true,
    description: `${ONE_OR_MANY} Numbers are E.164 (\`+14155550123\`). Idempotent.`,
  })
  @ApiNoContentResponse({ description: 'Banned.' })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['phone', FieldErrorCode.InvalidPhone],
    ['phones.0', FieldErrorCode.InvalidPhone],
  )
  addPhone(
    @CurrentCaller() caller: AdminCaller,
    @Body() dto: BanPhoneRequest,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    return this.bans.addPhones(caller, dto, audit);
  }

  @Post('phone/check')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'check_phone_ban_status',
    body: PHONE_BODY,
    summary: 'Check whether phone numbers are banned',
    acl: AdminAcl.BanPhoneCheck,
    bucket: 'admin:bans',
    description: ONE_OR_MANY,
  })
  @ApiOkResponse({
    type: BanCheckResponseSchema,
    description: 'One result per value: whether a ban covers it.',
  })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['phone', FieldErrorCode.InvalidPhone],
    ['phones.0', FieldErrorCode.InvalidPhone],
  )
  checkPhone(@Body() dto: BanPhoneRequest): Promise<BanCheckResponseSchema> {
    return this.bans.checkPhones(dto);
  }

  @Post('phone/list')
  @HttpCode(200)
  @AdminRoute({
    operationId: 'list_phone_bans',
    body: LIST_BODY,
    summary: 'List phone bans, newest first',
    acl: AdminAcl.BanPhoneCheck,
    bucket: 'admin:bans',
  })
  @ApiOkResponse({
    type: ListPhoneBansResponseSchema,
    description: 'A page of phone bans and the next cursor.',
  })
  listPhone(@Body() dto: ListBansRequest): Promise<ListPhoneBansResponseSchema> {
    return this.bans.listPhones(dto);
  }

  @Post('phone/remove')
  @HttpCode(204)
  @AdminRoute({
    operationId: 'remove_phone_ban',
    body: PHONE_BODY,
    summary: 'Lift phone bans',
    acl: AdminAcl.BanPhoneRemove,
    bucket: 'admin:bans',
    audited: true,
    description: `${ONE_OR_MANY} Idempotent.`,
  })
  @ApiNoContentResponse({ description: 'Lifted.' })
  @ApiErrors(
    ['root', FieldErrorCode.BanValueRequired],
    ['phone', FieldErrorCode.InvalidPhone],
    ['phones.0', FieldErrorCode.InvalidPhone],
  )
  removePhone(@Body() dto: BanPhoneRequest, @RequestAudit() audit: AuditContext): Promise<void> {
    return this.bans.removePhones(dto, audit);
  }
}
