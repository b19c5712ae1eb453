import { Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min, validateSync } from 'class-validator';
import { ApiError } from '../../../common/errors/api-error';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { flattenValidationErrors } from '../../../common/errors/validation';

/** One entry of Discord's Modify Guild Role Positions body. */
export class RolePositionDto {
  /** The role to move. */
  @Matches(/^\d{1,20}$/, {
    message: 'id must be a snowflake id',
    context: { code: FieldErrorCode.BaseTypeSnowflake },
  })
  id: string;

  /** Its new position (1 and up: @everyone alone is at 0); null leaves it where it is. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000)
  position?: number | null;
}

/** A guild has at most this many roles, so a longer list cannot be right. */
export const MAX_ROLE_POSITIONS = 250;

/**
 * The body is a bare array (Discord's shape), which the global ValidationPipe does not look
 * into: each entry is validated here, errors at `<index>.<field>`.
 */
@Injectable()
export class RolePositionsPipe implements PipeTransform<unknown, RolePositionDto[]> {
  transform(value: unknown): RolePositionDto[] {
    if (!Array.isArray(value)) {
      throw ApiError.field('root', FieldErrorCode.BaseTypeArray, 'The body must be an array.');
    }
    if (value.length > MAX_ROLE_POSITIONS) {
      throw ApiError.field('root', FieldErrorCode.BaseTypeMaxLength, 'At most 250 roles.');
    }
    const items = value.map((item: unknown, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        throw ApiError.field(String(i), FieldErrorCode.BaseTypeObject);
      }
      return plainToInstance(RolePositionDto, item);
    });
    const errors = items.flatMap((item, i) =>
      flattenValidationErrors(validateSync(item, { whitelist: true }), String(i)),
    );
    if (errors.length > 0) throw ApiError.form(errors);
    return items;
  }
}
