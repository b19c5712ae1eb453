import type { BanRecord } from '../../bans/ban-columns';
import type { EmailBanEntity } from '../../bans/email-ban.entity';
import type { IpBanEntity } from '../../bans/ip-ban.entity';
import type { PhoneBanEntity } from '../../bans/phone-ban.entity';
import type { EmailBanResponse, IpBanResponse, PhoneBanResponse } from './ban.response';

function entryFields(ban: BanRecord) {
  return {
    reason: ban.reason,
    created_at: ban.createdAt.toISOString(),
    created_by_key_id: ban.createdByKeyId,
    created_by_user_id: ban.createdByUserId,
  };
}

export function toEmailBan(ban: EmailBanEntity): EmailBanResponse {
  return { email: ban.email, ...entryFields(ban) };
}

export function toIpBan(ban: IpBanEntity): IpBanResponse {
  return { ip: ban.range, reverse_dns: ban.reverseDns, ...entryFields(ban) };
}

export function toPhoneBan(ban: PhoneBanEntity): PhoneBanResponse {
  return { phone: ban.phone, ...entryFields(ban) };
}
