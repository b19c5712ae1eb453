import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** Statuses a client may set (`offline` is shown as invisible: the session is still there). */
export const PRESENCE_STATUSES = ['online', 'idle', 'dnd', 'invisible', 'offline'] as const;

/** An activity a bot shows (Discord's, the fields bots set). */
export class ActivityDto {
  @IsString()
  @MaxLength(128)
  name!: string;

  /** 0 playing … 6 (Discord's activity types). */
  @IsInt()
  @Min(0)
  @Max(6)
  type!: number;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  url?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  state?: string | null;
}

/** Presence Update (op 3) and identify's `presence`, Discord's `d`. */
export class PresenceUpdateDto {
  /** Unix time (ms) the client went idle, or null. */
  @IsOptional()
  @IsInt()
  @Min(0)
  since?: number | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => ActivityDto)
  activities?: ActivityDto[];

  @IsIn(PRESENCE_STATUSES)
  status!: (typeof PRESENCE_STATUSES)[number];

  @IsOptional()
  @IsBoolean()
  afk?: boolean;
}
