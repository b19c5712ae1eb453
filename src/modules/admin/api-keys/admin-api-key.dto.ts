import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { ALL_ACLS } from '../acls';

export class CreateAdminApiKeyRequest {
  /** A label for the key (1–100 characters). */
  @IsString()
  @Length(1, 100)
  name: string;

  /**
   * Days until the key stops working (1–365); absent = never expires. Never later than the
   * calling key's own expiry (absent, when it has one: the same expiry).
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  expires_in_days?: number;

  /** The ACLs of the new key; only ACLs the calling key holds can be granted (`*` = all). */
  @ApiProperty({ type: [String], example: ['audit_log:view'], enum: ALL_ACLS, isArray: true })
  @IsArray()
  @ArrayMaxSize(ALL_ACLS.length)
  @IsString({ each: true })
  acls: string[];
}
