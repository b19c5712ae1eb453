import { plainToInstance, Transform } from 'class-transformer';
import {
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() !== '' && /^-?\d+$/.test(value.trim())
    ? Number(value)
    : value;
const url = { require_tld: false, require_protocol: true };

/** Every environment variable Parley reads. `.env.example` documents each one. */
export class EnvSchema {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional() @IsUrl(url) PUBLIC_URL?: string;
  @IsOptional() @IsUrl(url) WEB_APP_URL?: string;
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) DATABASE_POOL_SIZE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) EMBEDDED_DB_PORT?: number;
  @IsOptional() @IsString() @MinLength(1) DATA_DIR?: string;
  @IsOptional() @IsString() @MinLength(1) BLOB_DIR?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) METRICS_PORT?: number;
  @IsOptional() @IsString() @MinLength(1) METRICS_HOST?: string;
  @IsOptional() @IsIn(['local', 's3']) BLOB_STORAGE?: string;
  @IsOptional() @IsUrl(url) S3_ENDPOINT?: string;
  @IsOptional() @IsString() @MinLength(1) S3_REGION?: string;
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be an S3 bucket name' })
  S3_BUCKET?: string;
  @IsOptional() @IsString() @MinLength(1) S3_ACCESS_KEY_ID?: string;
  @IsOptional() @IsString() @MinLength(1) S3_SECRET_ACCESS_KEY?: string;
  @IsOptional() @IsIn(['true', 'false']) S3_FORCE_PATH_STYLE?: string;
  @IsOptional() @Matches(/^rediss?:\/\//, { message: 'must be a redis:// URL' }) REDIS_URL?: string;
  /**
   * Fault injection for the chaos run, never set in production: when this file appears, the
   * instance relaying events SIGKILLs itself right after numbering a batch, before sending it.
   */
  @IsOptional() @IsString() @MinLength(1) PARLEY_FAULT_RELAY_KILL_FILE?: string;
  /** Put before every Redis key and channel name, so that deployments can share one Redis. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, { message: 'must be 1-64 of A-Z a-z 0-9 : _ . -' })
  REDIS_KEY_PREFIX?: string;
  @IsOptional()
  @Matches(/^smtps?:\/\//, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;
  @IsOptional() @IsString() MAIL_FROM?: string;
  @IsOptional() @IsIn(['log', 'twilio']) SMS_PROVIDER?: string;
  @IsOptional() @IsUrl(url) TWILIO_BASE_URL?: string;
  @IsOptional() @IsString() TWILIO_ACCOUNT_SID?: string;
  @IsOptional() @IsString() TWILIO_AUTH_TOKEN?: string;
  @IsOptional() @IsString() TWILIO_FROM?: string;
  @IsOptional() @IsString() WEBAUTHN_RP_ID?: string;
  @IsOptional() @IsString() WEBAUTHN_RP_NAME?: string;
  @IsOptional() @IsString() WEBAUTHN_ORIGINS?: string;
  @IsOptional() @IsIn(['on', 'off']) SSO_ENABLED?: string;
  @IsOptional() @IsIn(['on', 'off']) SSO_ENFORCED?: string;
  @IsOptional() @IsString() @MaxLength(100) SSO_DISPLAY_NAME?: string;
  @IsOptional() @IsUrl(url) SSO_ISSUER?: string;
  @IsOptional() @IsString() SSO_CLIENT_ID?: string;
  @IsOptional() @IsString() SSO_CLIENT_SECRET?: string;
  @IsOptional() @IsString() SSO_ALLOWED_DOMAINS?: string;
  @IsOptional() @IsIn(['on', 'off']) SSO_AUTO_PROVISION?: string;
  // openid-client rebuilds the redirect_uri it sends to the token endpoint without query or
  // fragment, which would then differ from the one registered at the issuer.
  @IsOptional()
  @IsUrl(url)
  @Matches(/^[^?#]*$/, { message: 'SSO_REDIRECT_URI must have no query string or fragment' })
  SSO_REDIRECT_URI?: string;
  @IsOptional()
  @IsString()
  @Matches(/^(?=.*\bopenid\b)[\x21\x23-\x5B\x5D-\x7E ]{6,512}$/, {
    message: 'SSO_SCOPE must be space-separated scopes including openid',
  })
  SSO_SCOPE?: string;
  @IsOptional() @IsIn(['on', 'off']) REGISTRATION?: string;
  @IsOptional() @IsIn(['on', 'off']) IP_AUTHORIZATION?: string;
  @IsOptional() @IsIn(['express', 'fastify']) HTTP_ADAPTER?: string;
  @IsOptional() @IsString() TRUST_PROXY?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1023) WORKER_ID?: number;
  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;
  @IsOptional() @IsIn(['json', 'pretty']) LOG_FORMAT?: string;
  // Read by heap-tuning.ts before the app loads; validated here with the rest.
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(400) HEAP_GROWING_PERCENT?: number;
  @IsOptional() @IsIn(['on', 'off']) RATE_LIMITS?: string;
  @IsOptional() @IsIn(['on', 'off']) IP_BANS?: string;
  /** Outbound requests (interaction endpoints) may reach loopback and private addresses. */
  @IsOptional() @IsIn(['true', 'false']) OUTBOUND_ALLOW_PRIVATE?: string;
  @IsOptional()
  @Matches(/^\s*([a-z0-9:_-]+=\d+\/\d+(ms|s|m|h)\s*)(,\s*[a-z0-9:_-]+=\d+\/\d+(ms|s|m|h)\s*)*$/, {
    message: 'must look like "bucket=limit/window,…" e.g. "global=100/1s,auth:login=5/10s"',
  })
  RATE_LIMIT_OVERRIDES?: string;
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hex characters (32 bytes)' })
  SECRET_KEY?: string;
  // Key material: never echoed in a boot error (the key store names the variable only).
  @IsOptional() @IsString() OIDC_SIGNING_KEY?: string;
  @IsOptional() @IsString() OIDC_PREVIOUS_KEYS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(1000) MAX_WEBHOOKS_PER_CHANNEL?: number;
  /** Largest file a message may carry through multipart (bytes; 25 MiB by default). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500 * 1024 * 1024)
  ATTACHMENT_MAX_BYTES?: number;
  /** Largest file an upload URL takes (bytes; by default ATTACHMENT_MAX_BYTES; at most 500 MiB). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500 * 1024 * 1024)
  ATTACHMENT_UPLOAD_MAX_BYTES?: number;
  /** Seconds an upload URL's file waits to be attached before it is deleted. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) @Max(604_800) ATTACHMENT_UPLOAD_TTL?: number;
  /** Seconds an attachment's signed link works. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) @Max(604_800) ATTACHMENT_URL_TTL?: number;
  /** `true`: upload URLs are presigned S3 PUTs (clients can reach the bucket); else Parley's own. */
  @IsOptional() @IsIn(['true', 'false']) S3_PRESIGNED_UPLOADS?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600_000) SHUTDOWN_GRACE_MS?: number;
  /** Where clients reach the gateway, when not at PUBLIC_URL's host (a ws:// or wss:// URL). */
  @IsOptional()
  @Matches(/^wss?:\/\/[^\s?#]+$/, { message: 'must be a ws:// or wss:// URL without query' })
  GATEWAY_URL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(1_000_000) GATEWAY_MAX_CONNECTIONS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  GATEWAY_UPGRADES_PER_ADDRESS_PER_MINUTE?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  GATEWAY_FAILED_IDENTIFIES_PER_ADDRESS_PER_MINUTE?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  GATEWAY_IDENTIFY_TIMEOUT_MS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  GATEWAY_MAX_SESSIONS_PER_USER?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  GATEWAY_IDENTIFIES_PER_USER_PER_MINUTE?: number;
  @IsOptional() @IsIn(['on', 'off']) GATEWAY_COMPRESSION?: string;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  GATEWAY_HEARTBEAT_INTERVAL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1_000) @Max(600_000) SHUTDOWN_TIMEOUT_MS?: number;
  @IsOptional() @IsEmail() ADMIN_EMAIL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(3650) ARCHIVE_RETENTION_DAYS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(604_800)
  ARCHIVE_DOWNLOAD_URL_TTL_SECONDS?: number;
  // pg-boss refuses an expiration of 24 hours or more.
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_399)
  ARCHIVE_JOB_TIMEOUT_SECONDS?: number;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3_600)
  ARCHIVE_JOB_RETRY_DELAY_SECONDS?: number;
}

/** Validates `process.env`; a bad value stops the boot with a message naming the variable. */
export function validateEnv(raw: Record<string, unknown>): EnvSchema {
  const env = plainToInstance(EnvSchema, raw, { enableImplicitConversion: false });
  const errors = validateSync(env, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) =>
        `  ${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return env;
}
