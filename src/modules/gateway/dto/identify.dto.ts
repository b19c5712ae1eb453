import {
  IsBoolean,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Min,
  ValidateBy,
} from 'class-validator';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import { CloseCode, KNOWN_INTENTS } from '../protocol';

/** `[shard_id, shard_count]` with 0 ≤ id < count. */
function IsShard(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isShard',
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) &&
          value.length === 2 &&
          Number.isSafeInteger(value[0]) &&
          Number.isSafeInteger(value[1]) &&
          (value[1] as number) >= 1 &&
          (value[0] as number) >= 0 &&
          (value[0] as number) < (value[1] as number),
        defaultMessage: () =>
          '$property must be [shard_id, shard_count] with 0 ≤ shard_id < shard_count',
      },
    },
    { context: { code: FieldErrorCode.BaseTypeInvalid } },
  );
}

/** Only intent bits Discord defines. */
function IsKnownIntents(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isKnownIntents',
      validator: {
        validate: (value: unknown) =>
          Number.isSafeInteger(value) &&
          (value as number) >= 0 &&
          ((value as number) & ~KNOWN_INTENTS) === 0,
        defaultMessage: () => '$property has bits Discord does not define',
      },
    },
    { context: { code: FieldErrorCode.BaseTypeInvalid } },
  );
}

/**
 * Identify (op 2), Discord's `d`: what a client sends to start a session. Unknown fields are
 * allowed (clients send `capabilities`, `client_state`, …). What a failure closes with is
 * IDENTIFY_CLOSE_CODES'.
 */
export class IdentifyDto {
  /** A bot token (bare or `Bot `-prefixed) or a user session token. */
  @IsString()
  @Length(1, 512)
  @Matches(/^(Bot )?[\x21-\x7e]+$/)
  token!: string;

  @IsOptional()
  @IsObject()
  properties?: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  compress?: boolean;

  /** 50–250; outside that range the default (50) applies. */
  @IsOptional()
  @IsInt()
  large_threshold?: number;

  @IsOptional()
  @IsShard()
  shard?: [number, number];

  @IsOptional()
  @IsObject()
  presence?: Record<string, unknown>;

  /** Required of bots; user sessions receive everything they may see. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @IsKnownIntents()
  intents?: number;
}

/** The close code for a field that does not validate (4002 for anything not listed). */
export const IDENTIFY_CLOSE_CODES: Partial<Record<keyof IdentifyDto, CloseCode>> = {
  token: CloseCode.AuthenticationFailed,
  intents: CloseCode.InvalidIntents,
  shard: CloseCode.InvalidShard,
};
