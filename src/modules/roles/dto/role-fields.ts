import { applyDecorators } from '@nestjs/common';
import {
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';

/** Validation of the role fields both Create and Modify Guild Role take (null = absent). */
export const RoleName = () =>
  applyDecorators(IsOptional(), IsString(), MinLength(1), MaxLength(100));

export const RolePermissions = () =>
  applyDecorators(
    IsOptional(),
    IsString(),
    Matches(/^\d{1,20}$/, {
      message: 'permissions must be a decimal bitfield',
      context: { code: FieldErrorCode.PermissionsInvalid },
    }),
  );

export const RoleColor = () => applyDecorators(IsOptional(), IsInt(), Min(0), Max(0xffffff));

export const RoleEmoji = () =>
  applyDecorators(IsOptional(), IsString(), MinLength(1), MaxLength(32));
