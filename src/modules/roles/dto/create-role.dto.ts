import { ApiProperty } from '@nestjs/swagger';
import { Equals, IsBoolean, IsOptional } from 'class-validator';
import { RoleColor, RoleEmoji, RoleName, RolePermissions } from './role-fields';

/** Discord's Create Guild Role. Every field is optional; null counts as absent. */
export class CreateRoleDto {
  /** 1-100 characters; default "new role". */
  @RoleName()
  name?: string | null;

  /**
   * Permission bitfield (decimal string); default none. Only bits the caller holds may be
   * granted (403 MISSING_PERMISSIONS with `missing_permissions`).
   */
  @RolePermissions()
  permissions?: string | null;

  /** RGB as an integer (0-16777215); default 0 (no colour). */
  @RoleColor()
  color?: number | null;

  /** Shown apart in the member list; default false. */
  @IsOptional()
  @IsBoolean()
  hoist?: boolean | null;

  /** Anyone may mention it; default false. */
  @IsOptional()
  @IsBoolean()
  mentionable?: boolean | null;

  /** A unicode emoji shown with the role (1-32 characters). */
  @RoleEmoji()
  unicode_emoji?: string | null;

  /** Role icons are not supported: only null. */
  @ApiProperty({ type: String, nullable: true, required: false, example: null })
  @IsOptional()
  @Equals(null, { message: 'icon must be null (role icons are not supported)' })
  icon?: string | null;
}
