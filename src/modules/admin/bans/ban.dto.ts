import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';

/** Most values one request may name. */
export const MAX_BAN_VALUES = 100;

// Each body names one value or a list (not both, not neither: 400 `BAN_VALUE_REQUIRED` at `root`).
// The elements of a list are checked by the service, so an error names its index (`ips.2`).

export class BanEmailRequest {
  /** One e-mail address (compared trimmed and lower-cased). */
  @ApiProperty({ required: false, example: 'spammer@example.com' })
  @IsOptional()
  @IsString()
  email?: string;

  /** Several e-mail addresses (at most 100), instead of `email`. */
  @ApiProperty({ required: false, type: [String], maxItems: MAX_BAN_VALUES })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_BAN_VALUES)
  emails?: unknown[];
}

export class BanIpRequest {
  /**
   * One IPv4/IPv6 address or CIDR range (`203.0.113.7`, `203.0.113.0/24`, `2001:db8::/64`). A
   * range must not have host bits set; IPv4 ranges are /8 or narrower, IPv6 ranges /16 or
   * narrower.
   */
  @ApiProperty({ required: false, example: '203.0.113.0/24' })
  @IsOptional()
  @IsString()
  ip?: string;

  /** Several addresses or ranges (at most 100), instead of `ip`. */
  @ApiProperty({ required: false, type: [String], maxItems: MAX_BAN_VALUES })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_BAN_VALUES)
  ips?: unknown[];

  /**
   * Add only: also end the sessions last used from a banned address (default false). Ignored by
   * check and remove.
   */
  @IsOptional()
  @IsBoolean()
  retroactive?: boolean;
}

export class BanPhoneRequest {
  /** One phone number in E.164 form (`+14155550123`). */
  @ApiProperty({ required: false, example: '+14155550123' })
  @IsOptional()
  @IsString()
  phone?: string;

  /** Several phone numbers (at most 100), instead of `phone`. */
  @ApiProperty({ required: false, type: [String], maxItems: MAX_BAN_VALUES })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_BAN_VALUES)
  phones?: unknown[];
}

export class ListBansRequest {
  /** Bans per page (1–200, default 50), newest first. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  /** The `next_cursor` of the previous page. */
  @ApiProperty({ required: false, example: '1300000000000000000' })
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,20}$/)
  cursor?: string;
}
