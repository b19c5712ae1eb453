import { ApiProperty } from '@nestjs/swagger';
import { Equals, IsBoolean, IsOptional } from 'class-validator';
import { RoleColor, RoleEmoji, RoleName, RolePermissions } from './role-fields';

/** Discord's Modify Guild Role: only the fields sent change (null counts as absent, but clears `unicode_emoji`). */
export class UpdateRoleDto {
  /** 1-100 characters (@everyone keeps its name). */
  @RoleName()
  name?: string | null;

  /** Permission bitfield (decimal string); bits added must be held by the caller. */
  @RolePermissions()
  permissions?: string | null;

  /** RGB as an integer (0-16777215). */
  @RoleColor()
  color?: number | null;

  @IsOptional()
  @IsBoolean()
  hoist?: boolean | null;

  @IsOptional()
  @IsBoolean()
  mentionable?: boolean | null;

  /** A unicode emoji (1-32 characters); null removes it. */
  @RoleEmoji()
  unicode_emoji?: string | null;

  /** Role icons are not supported: only null. */
  @ApiProperty({ type: String, nullable: true, required: false, example: null })
  @IsOptional()
  @Equals(null, { message: 'icon must be null (role icons are not supported)' })
  icon?: string | null;
}
