import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EnvSchema, validateEnv } from './env.schema';
import { BucketTable, resolveBuckets } from './rate-limit.config';

const on = (v: string | undefined, dflt: boolean) => (v === undefined ? dflt : v === 'on');
const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Typed, validated configuration. Built once at boot; nothing else reads `process.env`. */
export class AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly version: string;
  readonly port: number;
  readonly publicUrl: string;
  readonly apiUrl: string;
  readonly webAppUrl: string;
  readonly dataDir: string;
  /**
   * Root of local blob storage (archives, assets): DATA_DIR unless BLOB_DIR says otherwise.
   * Several instances with local blobs must share it (one volume), or an archive built by one
   * instance cannot be downloaded through another.
   */
  readonly blobDir: string;
  /**
   * Prometheus metrics: off (port null) unless METRICS_PORT is set; then served at `/metrics` on
   * METRICS_HOST (loopback unless it says otherwise), never on the API's port. 0 = a free port.
   */
  readonly metrics: { port: number | null; host: string };
  /**
   * Where blobs go: `local` (files under blobDir, one instance or a shared volume) or `s3` (an
   * S3-compatible bucket every instance reads and writes). Credentials null: the AWS SDK's
   * default chain (environment, instance role).
   */
  readonly blobs: {
    kind: 'local' | 's3';
    s3: {
      endpoint: string | null;
      region: string;
      bucket: string;
      accessKeyId: string | null;
      secretAccessKey: string | null;
      forcePathStyle: boolean;
    } | null;
  };
  /** `url` null = the embedded PostgreSQL in DATA_DIR/postgres (on `embeddedPort`, 0 = a free port). */
  readonly database: { url: string | null; poolSize: number; embeddedPort: number };
  readonly redisUrl: string | null;
  /** Before every Redis key and pub/sub channel (REDIS_KEY_PREFIX; '' = none). */
  readonly redisKeyPrefix: string;
  /** Fault injection for the chaos run (bench/chaos.ts); null everywhere else. */
  readonly faults: { relayKillFile: string | null };
  readonly mail: { smtpUrl: string | null; from: string };
  readonly sms: {
    provider: 'log' | 'twilio';
    twilio: {
      baseUrl: string;
      accountSid: string | null;
      authToken: string | null;
      from: string | null;
    };
  };
  readonly webauthn: { rpId: string; rpName: string; origins: string[] };
  readonly sso: {
    enabled: boolean;
    enforced: boolean;
    displayName: string | null;
    issuer: string | null;
    clientId: string | null;
    clientSecret: string | null;
    allowedDomains: string[];
    autoProvision: boolean;
    /** Where the issuer sends the browser back (the web app's page that posts code + state). */
    redirectUri: string;
    scope: string;
  };
  readonly registration: boolean;

  /** SSO_ENFORCED with SSO on: password login, registration and password reset answer 403 SSO_REQUIRED. */
  get passwordLoginDisabled(): boolean {
    return this.sso.enabled && this.sso.enforced;
  }
  readonly ipAuthorization: boolean;
  /** The Nest HTTP adapter (`HTTP_ADAPTER`): Express by default, Fastify for throughput. */
  readonly httpAdapter: 'express' | 'fastify';
  readonly trustProxy: string | false;
  readonly workerId: number;
  readonly logLevel: string;
  /**
   * How log lines are written (`LOG_FORMAT`): JSON lines (pino), or human-readable ones
   * (pino-pretty) — by default on a terminal outside production, JSON everywhere else.
   */
  readonly logFormat: 'json' | 'pretty';
  readonly rateLimits: { enabled: boolean; buckets: BucketTable };
  /** Whether banned IPs are refused (off only to measure the check's cost in load benchmarks). */
  readonly ipBans: boolean;
  /**
   * Requests Parley makes to URLs users give (interaction endpoints): `allowPrivate` lets them
   * reach loopback, link-local and private addresses (OUTBOUND_ALLOW_PRIVATE=true: tests, or an
   * instance whose bots run beside it on a private network); off, those are refused after DNS
   * resolution.
   */
  readonly outbound: { allowPrivate: boolean };
  readonly secretKey: Buffer;
  /**
   * OpenID Connect ID-token keys, as given (parsed once at boot by the OAuth2 module's key
   * store): the active private key, and older keys published for verification only. Unset
   * signing key = DATA_DIR/oidc-keys.json, generated on first start.
   */
  readonly oidc: { signingKey: string | null; previousKeys: string | null };
  /**
   * Message attachments: the largest file through multipart (`maxBytes`) and through an upload
   * URL (`uploadMaxBytes`), at most `maxFiles` per message; an upload waits `uploadTtlSeconds` to be
   * attached; a signed link works `urlTtlSeconds`; `presignedUploads`: upload URLs point at the
   * S3 bucket itself (BLOB_STORAGE=s3 and S3_PRESIGNED_UPLOADS=true).
   */
  readonly attachments: {
    maxBytes: number;
    uploadMaxBytes: number;
    maxFiles: number;
    uploadTtlSeconds: number;
    urlTtlSeconds: number;
    presignedUploads: boolean;
  };
  readonly limits: {
    jsonBodyBytes: number;
    repohostBodyBytes: number;
    maxWebhooksPerChannel: number;
    maxListLimit: number;
  };
  readonly adminEmail: string | null;
  /**
   * Data archives: kept `retentionDays` after the request; signed download links live
   * `downloadUrlTtlSeconds`. One build attempt may run `jobTimeoutSeconds` (an attempt left
   * running by a crashed instance is retried once that has passed); retries wait
   * `jobRetryDelaySeconds`, doubled per attempt.
   */
  readonly archives: {
    retentionDays: number;
    downloadUrlTtlSeconds: number;
    jobTimeoutSeconds: number;
    jobRetryDelaySeconds: number;
  };
  /** SIGTERM/SIGINT: serve `graceMs` more (readiness 503), then drain for at most `timeoutMs`. */
  readonly shutdown: { graceMs: number; timeoutMs: number };
  /**
   * The real-time gateway (WebSocket at /gateway on the API's port): the URL clients are told
   * (GATEWAY_URL, else PUBLIC_URL as ws(s)://…/gateway), caps on open connections (0 = none;
   * by default well under the process's open-file limit) and per client address, upgrades and
   * failed identifies per address per minute (rate limits: off with RATE_LIMITS=off), how long a connection may stay unidentified, sessions and identifies per
   * user, whether `compress=zlib-stream` is offered, and the heartbeat interval sent in Hello.
   */
  readonly gateway: {
    url: string;
    maxConnections: number;
    maxConnectionsPerAddress: number;
    upgradesPerAddressPerMinute: number;
    failedIdentifiesPerAddressPerMinute: number;
    identifyTimeoutMs: number;
    maxSessionsPerUser: number;
    identifiesPerUserPerMinute: number;
    compression: boolean;
    heartbeatIntervalMs: number;
  };

  constructor(env: EnvSchema) {
    this.env = (env.NODE_ENV as AppConfig['env']) ?? 'development';
    this.version = readPackageVersion();
    this.port = env.PORT ?? 8080;
    this.publicUrl = (env.PUBLIC_URL ?? `http://localhost:${this.port}`).replace(/\/+$/, '');
    this.apiUrl = `${this.publicUrl}/v1`;
    this.webAppUrl = (env.WEB_APP_URL ?? this.publicUrl).replace(/\/+$/, '');
    this.dataDir = resolve(env.DATA_DIR ?? './data');
    this.blobDir = env.BLOB_DIR ? resolve(env.BLOB_DIR) : this.dataDir;
    this.metrics = { port: env.METRICS_PORT ?? null, host: env.METRICS_HOST ?? '127.0.0.1' };
    if (this.metrics.port !== null && this.metrics.port === this.port && this.port !== 0) {
      throw new Error('Invalid configuration:\n  METRICS_PORT must differ from PORT');
    }
    this.blobs = { kind: (env.BLOB_STORAGE as 'local' | 's3') ?? 'local', s3: null };
    if (this.blobs.kind === 's3') {
      const missing = [
        env.S3_BUCKET ? null : 'S3_BUCKET',
        !env.S3_ACCESS_KEY_ID !== !env.S3_SECRET_ACCESS_KEY
          ? 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together'
          : null,
      ].filter((m): m is string => m !== null);
      if (missing.length > 0) {
        throw new Error(
          `Invalid configuration:\n${missing.map((k) => `  BLOB_STORAGE=s3 needs ${k}`).join('\n')}`,
        );
      }
      this.blobs.s3 = {
        endpoint: env.S3_ENDPOINT ?? null,
        region: env.S3_REGION ?? 'us-east-1',
        bucket: env.S3_BUCKET!,
        accessKeyId: env.S3_ACCESS_KEY_ID ?? null,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? null,
        forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
      };
    }
    this.database = {
      url: env.DATABASE_URL ?? null,
      poolSize: env.DATABASE_POOL_SIZE ?? 10,
      embeddedPort: env.EMBEDDED_DB_PORT ?? 0,
    };
    this.redisUrl = env.REDIS_URL ?? null;
    this.redisKeyPrefix = env.REDIS_KEY_PREFIX ?? '';
    this.faults = { relayKillFile: env.PARLEY_FAULT_RELAY_KILL_FILE ?? null };
    this.mail = {
      smtpUrl: env.SMTP_URL ?? null,
      from: env.MAIL_FROM ?? 'Parley <no-reply@localhost>',
    };
    this.sms = {
      provider: (env.SMS_PROVIDER as 'log' | 'twilio') ?? 'log',
      twilio: {
        baseUrl: env.TWILIO_BASE_URL ?? 'https://api.twilio.com',
        accountSid: env.TWILIO_ACCOUNT_SID ?? null,
        authToken: env.TWILIO_AUTH_TOKEN ?? null,
        from: env.TWILIO_FROM ?? null,
      },
    };
    if (this.sms.provider === 'twilio') {
      const missing = (
        [
          ['TWILIO_ACCOUNT_SID', this.sms.twilio.accountSid],
          ['TWILIO_AUTH_TOKEN', this.sms.twilio.authToken],
          ['TWILIO_FROM', this.sms.twilio.from],
        ] as const
      ).filter(([, v]) => !v);
      if (missing.length > 0) {
        throw new Error(
          `Invalid configuration:\n${missing.map(([k]) => `  SMS_PROVIDER=twilio needs ${k}`).join('\n')}`,
        );
      }
    }
    const publicHost = new URL(this.webAppUrl).hostname;
    this.webauthn = {
      rpId: env.WEBAUTHN_RP_ID ?? publicHost,
      rpName: env.WEBAUTHN_RP_NAME ?? 'Parley',
      origins: env.WEBAUTHN_ORIGINS ? list(env.WEBAUTHN_ORIGINS) : [this.webAppUrl],
    };
    this.sso = {
      enabled: on(env.SSO_ENABLED, false),
      enforced: on(env.SSO_ENFORCED, false),
      displayName: env.SSO_DISPLAY_NAME ?? null,
      issuer: env.SSO_ISSUER ?? null,
      clientId: env.SSO_CLIENT_ID ?? null,
      clientSecret: env.SSO_CLIENT_SECRET ?? null,
      allowedDomains: list(env.SSO_ALLOWED_DOMAINS),
      autoProvision: on(env.SSO_AUTO_PROVISION, false),
      redirectUri: env.SSO_REDIRECT_URI ?? `${this.webAppUrl}/sso/callback`,
      scope: env.SSO_SCOPE ?? 'openid email profile',
    };
    if (this.sso.enabled && (!this.sso.issuer || !this.sso.clientId)) {
      throw new Error(
        'Invalid configuration:\n  SSO_ENABLED=on needs SSO_ISSUER and SSO_CLIENT_ID',
      );
    }
    this.registration = on(env.REGISTRATION, true);
    this.ipAuthorization = on(env.IP_AUTHORIZATION, true);
    this.httpAdapter = env.HTTP_ADAPTER === 'fastify' ? 'fastify' : 'express';
    this.trustProxy = env.TRUST_PROXY && env.TRUST_PROXY !== 'off' ? env.TRUST_PROXY : false;
    this.workerId = env.WORKER_ID ?? 0;
    this.logLevel = env.LOG_LEVEL ?? (this.env === 'test' ? 'warn' : 'info');
    this.logFormat =
      (env.LOG_FORMAT as AppConfig['logFormat'] | undefined) ??
      (process.stdout.isTTY && this.env !== 'production' ? 'pretty' : 'json');
    let buckets: BucketTable;
    try {
      buckets = resolveBuckets(env.RATE_LIMIT_OVERRIDES);
    } catch (e) {
      throw new Error(`Invalid configuration:\n  ${(e as Error).message}`);
    }
    this.rateLimits = { enabled: on(env.RATE_LIMITS, true), buckets };
    this.ipBans = on(env.IP_BANS, true);
    this.outbound = { allowPrivate: env.OUTBOUND_ALLOW_PRIVATE === 'true' };
    this.secretKey = env.SECRET_KEY
      ? Buffer.from(env.SECRET_KEY, 'hex')
      : loadOrCreateSecretKey(this.dataDir);
    this.oidc = {
      signingKey: env.OIDC_SIGNING_KEY ?? null,
      previousKeys: env.OIDC_PREVIOUS_KEYS ?? null,
    };
    this.limits = {
      jsonBodyBytes: 1024 * 1024,
      repohostBodyBytes: 25 * 1024 * 1024,
      maxWebhooksPerChannel: env.MAX_WEBHOOKS_PER_CHANNEL ?? 15,
      maxListLimit: 200,
    };
    const attachmentMax = env.ATTACHMENT_MAX_BYTES ?? 25 * 1024 * 1024;
    this.attachments = {
      maxBytes: attachmentMax,
      uploadMaxBytes: env.ATTACHMENT_UPLOAD_MAX_BYTES ?? attachmentMax,
      maxFiles: 10,
      uploadTtlSeconds: env.ATTACHMENT_UPLOAD_TTL ?? 3600,
      urlTtlSeconds: env.ATTACHMENT_URL_TTL ?? 86_400,
      presignedUploads: this.blobs.kind === 's3' && env.S3_PRESIGNED_UPLOADS === 'true',
    };
    this.adminEmail = env.ADMIN_EMAIL ?? null;
    this.archives = {
      retentionDays: env.ARCHIVE_RETENTION_DAYS ?? 30,
      downloadUrlTtlSeconds: env.ARCHIVE_DOWNLOAD_URL_TTL_SECONDS ?? 86_400,
      jobTimeoutSeconds: env.ARCHIVE_JOB_TIMEOUT_SECONDS ?? 900,
      jobRetryDelaySeconds: env.ARCHIVE_JOB_RETRY_DELAY_SECONDS ?? 30,
    };
    this.shutdown = {
      // A load balancer needs a few seconds to see readiness fail; elsewhere nobody is listening.
      graceMs: env.SHUTDOWN_GRACE_MS ?? (this.env === 'production' ? 5_000 : 0),
      timeoutMs: env.SHUTDOWN_TIMEOUT_MS ?? 30_000,
    };
    this.gateway = {
      url: (env.GATEWAY_URL ?? `${this.publicUrl.replace(/^http/, 'ws')}/gateway`).replace(
        /\/+$/,
        '',
      ),
      maxConnections: env.GATEWAY_MAX_CONNECTIONS ?? defaultMaxConnections(),
      maxConnectionsPerAddress: env.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS ?? 100,
      upgradesPerAddressPerMinute: env.GATEWAY_UPGRADES_PER_ADDRESS_PER_MINUTE ?? 120,
      failedIdentifiesPerAddressPerMinute:
        env.GATEWAY_FAILED_IDENTIFIES_PER_ADDRESS_PER_MINUTE ?? 10,
      identifyTimeoutMs: env.GATEWAY_IDENTIFY_TIMEOUT_MS ?? 20_000,
      maxSessionsPerUser: env.GATEWAY_MAX_SESSIONS_PER_USER ?? 32,
      identifiesPerUserPerMinute: env.GATEWAY_IDENTIFIES_PER_USER_PER_MINUTE ?? 20,
      compression: (env.GATEWAY_COMPRESSION ?? 'on') === 'on',
      heartbeatIntervalMs: env.GATEWAY_HEARTBEAT_INTERVAL_MS ?? 41_250,
    };
  }

  /** Validates an environment record (process.env merged with overrides) into a config. */
  static fromEnv(raw: Record<string, string | undefined>): AppConfig {
    return new AppConfig(validateEnv(raw));
  }
}

// The embedded default needs no set-up: the key is generated once and kept in DATA_DIR.
function loadOrCreateSecretKey(dataDir: string): Buffer {
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) {
    const hex = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(hex)) {
      throw new Error(`Invalid configuration:\n  ${file} does not hold a 64-hex-character key`);
    }
    return Buffer.from(hex, 'hex');
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return key;
}

function readPackageVersion(): string {
  for (const p of [
    join(__dirname, '../../package.json'),
    join(__dirname, '../../../package.json'),
  ]) {
    if (existsSync(p)) return (JSON.parse(readFileSync(p, 'utf8')) as { version: string }).version;
  }
  return '0.0.0';
}

/**
 * The default cap on gateway connections: each holds a file descriptor, so it stays well under
 * the process's open-file limit, leaving a fifth of it (at least 256) for HTTP connections, the
 * database pool, Redis and files — at most 20,000. `limits` is /proc/self/limits' text.
 */
export function defaultMaxConnections(limits: string | null = readLimits()): number {
  const m = limits ? /^Max open files\s+(\d+)/m.exec(limits) : null;
  const files = m ? Number(m[1]) : 1024;
  return Math.max(64, Math.min(20_000, files - Math.max(256, Math.floor(files / 5))));
}

function readLimits(): string | null {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null; // Not Linux: the common default applies.
  }
}
