import { ApiProperty } from '@nestjs/swagger';

export class BanCheckResult {
  /** The value as checked (normalized: lower-cased e-mail, canonical IP or range). */
  @ApiProperty({ example: '203.0.113.7' })
  value: string;

  banned: boolean;

  /** IP checks only: the ban that covers the value, as PostgreSQL `cidr` text; null if none. */
  @ApiProperty({ required: false, nullable: true, type: String, example: '203.0.113.0/24' })
  range?: string | null;
}

export class BanCheckResponseSchema {
  /** Whether any of the given values is banned. */
  banned: boolean;

  /** One result per given value, in the order given. */
  @ApiProperty({ type: [BanCheckResult] })
  results: BanCheckResult[];
}

class BanEntryFields {
  /** The `X-Audit-Log-Reason` of the request that added the ban. */
  @ApiProperty({ nullable: true, type: String })
  reason: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  /** The admin key that added the ban. */
  @ApiProperty({ nullable: true, type: String, example: '1300000000000000000' })
  created_by_key_id: string | null;

  /** The owner of that key. */
  @ApiProperty({ nullable: true, type: String, example: '1300000000000000001' })
  created_by_user_id: string | null;
}

export class EmailBanResponse extends BanEntryFields {
  @ApiProperty({ example: 'spammer@example.com' })
  email: string;
}

export class IpBanResponse extends BanEntryFields {
  /** The banned range as PostgreSQL `cidr` text (a single address is a /32 or /128). */
  @ApiProperty({ example: '203.0.113.7/32' })
  ip: string;

  /** The reverse DNS name of a single-address ban, looked up when it was added. */
  @ApiProperty({ nullable: true, type: String, example: 'host-7.example.net' })
  reverse_dns: string | null;
}

export class PhoneBanResponse extends BanEntryFields {
  @ApiProperty({ example: '+14155550123' })
  phone: string;
}

class BanPage {
  /** How many bans of this kind exist. */
  total: number;

  /** Pass as `cursor` for the next page; null on the last page. */
  @ApiProperty({ nullable: true, type: String })
  next_cursor: string | null;
}

export class ListEmailBansResponseSchema extends BanPage {
  @ApiProperty({ type: [EmailBanResponse] })
  bans: EmailBanResponse[];
}

export class ListIpBansResponseSchema extends BanPage {
  @ApiProperty({ type: [IpBanResponse] })
  bans: IpBanResponse[];
}

export class ListPhoneBansResponseSchema extends BanPage {
  @ApiProperty({ type: [PhoneBanResponse] })
  bans: PhoneBanResponse[];
}
