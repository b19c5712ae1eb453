import {
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  Logger,
  type OnModuleInit,
  type Type,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import bodyParser from 'body-parser';
import { parse as parseContentType } from 'content-type';
import type { IncomingMessage, ServerResponse } from 'node:http';
import typeIs from 'type-is';
import { AppConfig } from '../../config/app.config';
import type { ParleyRequest, ReceivedPayload } from '../auth/caller';
import { toApiError } from '../errors/all-exceptions.filter';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { OAuthError } from '../errors/oauth-error';
import { checkJsonText } from './json-check';
import {
  type JsonLimits,
  MAX_DTO_JSON_ITEMS,
  MAX_JSON_DEPTH,
  quoteUnsafeIntegers,
} from './json-limits';
import { isMultipart, readMultipart, UploadedFiles } from './multipart';
import type { BodyPolicy, FileIntakeOpener } from './route-policy';

/** Media types a JSON body may be declared as. */
export const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

type Middleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/** The bytes of a JSON body that holds integers JSON.parse would round (set by the verifier). */
const LONG_INTEGERS = Symbol('parley.longIntegers');
type VerifiedRequest = IncomingMessage & { body?: unknown; [LONG_INTEGERS]?: Buffer };

/**
 * body-parser's `verify` hook running checkJsonText on the exact bytes it is about to parse; a
 * body with digit runs long enough to exceed 2^53 is kept for `keepLongIntegers`.
 */
export function jsonBodyVerifier(
  limits: JsonLimits,
): (req: IncomingMessage, res: ServerResponse, body: Buffer, encoding: string) => void {
  return (req, _res, body, encoding) => {
    const found = { longDigitRuns: false };
    checkJsonText(body, encoding, limits, found);
    if (found.longDigitRuns) (req as VerifiedRequest)[LONG_INTEGERS] = body;
  };
}

/**
 * After body-parser: a body that holds integers beyond 2^53 is parsed again with those written as
 * strings (quoteUnsafeIntegers), so a snowflake sent as a JSON number keeps its digits. Only such
 * bodies pay for it.
 */
const keepLongIntegers: Middleware = (req, _res, next) => {
  const verified = req as VerifiedRequest;
  const bytes = verified[LONG_INTEGERS];
  if (bytes) {
    verified[LONG_INTEGERS] = undefined;
    verified.body = JSON.parse(quoteUnsafeIntegers(bytes.toString('utf8'))) as unknown;
  }
  next();
};

/** Runs body-parser middlewares one after the other on the raw request, like Express would. */
function chain(...parsers: Middleware[]): Middleware {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err || i === parsers.length) return next(err);
      parsers[i++](req, res, step);
    };
    step();
  };
}

/** Whether a request carries a body (a length above zero, or chunked), as body-parser decides. */
export function hasBody(req: IncomingMessage): boolean {
  return typeIs.hasBody(req) && req.headers['content-length'] !== '0';
}

/** The Node response under the framework's one (Fastify's reply wraps it as `raw`). */
function nodeResponseOf(res: object): ServerResponse {
  return ((res as { raw?: ServerResponse }).raw ?? res) as ServerResponse;
}

/** The Node request under the framework's one (Fastify wraps it as `raw`; Express is it). */
export function nodeRequestOf(req: object): IncomingMessage & { body?: unknown } {
  return ((req as { raw?: IncomingMessage }).raw ?? req) as IncomingMessage & { body?: unknown };
}

/**
 * Reads the request body for the handler: the last global guard, after the caller guard, the
 * rate limiter and the access guard, so a request whose credential is wrong, whose caller is
 * rate limited or whose path names no webhook is answered before a byte of its body is read — it
 * costs no parsing, and its connection is closed rather than drained (common/http/platform). A guard and
 * not an interceptor: Nest's interceptor chain (rxjs, an async resource per request) cost more
 * than half of a small route's throughput (bench/RESULTS.md, 2026-11-25, "security work"). What is read and how
 * comes from the route's `BodyPolicy` (route-policy.ts), with the limits of ARCHITECTURE.md §5:
 *
 * - `dto` routes: body-parser (the parser Express uses) on the raw request — `Content-Encoding`
 *   undone, the declared charset honoured, the size limit enforced on the decoded bytes — with
 *   JSON checked by `checkJsonText` before JSON.parse and form bodies flat (`a[b]` is not nested,
 *   at most 1,000 parameters). A body that does not parse is a 400 envelope, or RFC 6749
 *   `invalid_request` on `@OAuthErrorShape` routes. A content type no parser takes leaves the
 *   body undefined (the DTO validation then answers), as in Express.
 * - `foreign` routes: the decoded bytes of a JSON or form body, unparsed, on `req.payload`; their
 *   owner verifies a signature over them and parses them, off the event loop when they are large
 *   (webhooks/delivery-parser.ts). Any other content type leaves the payload null.
 * - `stream` routes (`@RawStream`): nothing is read; the handler takes the Node request
 *   (`@RequestStream()`) and streams its body where it goes, after its own checks.
 */
@Injectable()
export class BodyReader implements CanActivate, OnModuleInit {
  private parsers!: Record<ParsedBodyPolicy['kind'], Record<BodyPolicy['size'], Middleware>>;

  private limits!: Record<BodyPolicy['size'], number>;

  private readonly openers = new Map<Type<FileIntakeOpener>, FileIntakeOpener>();
  private readonly logger = new Logger('BodyReader');

  constructor(
    private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    const limits: Record<BodyPolicy['size'], number> = {
      default: this.config.limits.jsonBodyBytes,
      large: this.config.limits.repohostBodyBytes,
    };
    this.limits = limits;
    const verify = jsonBodyVerifier({ maxDepth: MAX_JSON_DEPTH, maxItems: MAX_DTO_JSON_ITEMS });
    const dto = (limit: number) =>
      chain(
        bodyParser.json({ limit, type: JSON_TYPES, verify }),
        keepLongIntegers,
        // Flat `key=value` pairs (no `a[b]` nesting, no prototype keys), at most 1,000; a repeated
        // key is an array of strings.
        bodyParser.urlencoded({ limit, extended: false }),
      );
    const foreign = (limit: number) =>
      bodyParser.raw({ limit, type: (req) => foreignMediaType(req) !== null });
    this.parsers = {
      dto: { default: dto(limits.default), large: dto(limits.large) },
      foreign: { default: foreign(limits.default), large: foreign(limits.large) },
    };
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    return this.read(http.getRequest<ParleyRequest>(), http.getResponse<object>());
  }

  /** Reads the body the route's policy asks for into `req.body` or `req.payload`. */
  read(req: ParleyRequest, res?: object): true | Promise<true> {
    const raw = nodeRequestOf(req);
    const policy = req.routePolicy?.body;
    // A `@RawStream` route reads its own body (route-policy.ts): left untouched here.
    if (!policy || !parsedHere(policy)) return true;
    const files = req.routePolicy?.files;
    if (files && res && hasBody(raw) && isMultipart(raw)) {
      return this.readFiles(req, raw, res, files, policy);
    }
    if (hasBody(raw)) return this.readInto(req, raw, policy);
    if (policy.kind === 'foreign') req.payload = null;
    return true;
  }

  /**
   * A multipart body on an `@AcceptsFiles` route: the intake is opened (the caller's right to
   * upload there checked) before a byte is read, then files stream into it and `payload_json`
   * becomes the body (or the payload of a foreign route). Files the handler does not keep are
   * deleted when the response ends (UploadedFiles).
   */
  private async readFiles(
    req: ParleyRequest,
    raw: IncomingMessage,
    res: object,
    opener: Type<FileIntakeOpener>,
    policy: BodyPolicy,
  ): Promise<true> {
    const intake = await this.intakeOpener(opener).open(req);
    const { body, payloadJson, files } = await readMultipart(raw, intake, this.limits.default);
    const uploads = new UploadedFiles(files, intake);
    req.uploads = uploads;
    nodeResponseOf(res).once('close', () => {
      uploads
        .settle()
        .catch((err: unknown) => this.logger.warn(`discarding uploads: ${String(err)}`));
    });
    if (policy.kind === 'foreign') {
      req.payload = payloadJson ? { bytes: payloadJson, mediaType: 'json', charset: null } : null;
    } else (req as { body?: unknown }).body = body;
    return true;
  }

  private intakeOpener(type: Type<FileIntakeOpener>): FileIntakeOpener {
    let opener = this.openers.get(type);
    if (!opener) {
      opener = this.moduleRef.get<FileIntakeOpener>(type, { strict: false });
      this.openers.set(type, opener);
    }
    return opener;
  }

  private async readInto(
    req: ParleyRequest,
    raw: IncomingMessage & { body?: unknown },
    policy: ParsedBodyPolicy,
  ): Promise<true> {
    await this.parse(raw, policy);
    if (policy.kind === 'foreign') req.payload = receivedPayload(raw);
    else (req as { body?: unknown }).body = raw.body;
    return true;
  }

  /** A foreign body of a declared length (readDeclaredBody), where body-parser would put it. */
  private async readDeclared(
    raw: IncomingMessage & { body?: unknown },
    length: number,
    policy: BodyPolicy,
  ): Promise<void> {
    raw.body = await readDeclaredBody(raw, length, this.limits[policy.size]);
  }

  private parse(raw: IncomingMessage, policy: ParsedBodyPolicy): Promise<void> {
    if (policy.kind === 'foreign' && foreignMediaType(raw) !== null) {
      const length = declaredIdentityLength(raw);
      if (length !== null) return this.readDeclared(raw, length, policy);
    }
    return new Promise((resolve, reject) => {
      this.parsers[policy.kind][policy.size](raw, null as never, (err?: unknown) => {
        if (!err) return resolve();
        const apiError = toApiError(err);
        if (!apiError) return reject(err instanceof Error ? err : new Error('body read failed'));
        reject(
          policy.oauthErrors
            ? new OAuthError('invalid_request', 'The request body could not be parsed.')
            : apiError,
        );
      });
    });
  }
}

/** The bodies this reader parses (every kind but `stream`). */
type ParsedBodyPolicy = BodyPolicy & { kind: 'dto' | 'foreign' };

function parsedHere(policy: BodyPolicy): policy is ParsedBodyPolicy {
  return policy.kind !== 'stream';
}

/**
 * A foreign body of a declared length, not encoded (what webhook senders send): read into one
 * buffer of that length as it arrives. body-parser would keep the chunks and copy them into a new
 * buffer at the end — for a 25 MiB delivery one synchronous copy into fresh memory, which took
 * ~100 ms of the event loop on a virtual machine (a page fault per 4 KiB), the stall the
 * body-stall serial test measures. Here each chunk is copied as it arrives, so that cost is spread
 * over the reads; the buffer is then handed to a worker thread without a copy (delivery-parser.ts).
 * Errors as body-parser's: over the limit 413, a length that does not match 400.
 */
function readDeclaredBody(raw: IncomingMessage, length: number, limit: number): Promise<Buffer> {
  if (length > limit) return Promise.reject(new ApiError(ErrorCode.PayloadTooLarge));
  return new Promise((resolve, reject) => {
    // Pages are only touched as the bytes are written.
    const body = Buffer.allocUnsafeSlow(length);
    let received = 0;
    const fail = (code: ErrorCode) => {
      cleanup();
      // What is left of the body is not read: the answer closes the connection (lingering-close.ts).
      raw.pause();
      reject(new ApiError(code));
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > length) return fail(ErrorCode.BadRequest);
      chunk.copy(body, received);
      received += chunk.length;
    };
    const onEnd = () => {
      cleanup();
      if (received !== length) reject(new ApiError(ErrorCode.BadRequest));
      else resolve(body);
    };
    const onAborted = () => fail(ErrorCode.BadRequest);
    const cleanup = () => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('aborted', onAborted);
      raw.off('error', onAborted);
    };
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('aborted', onAborted);
    raw.on('error', onAborted);
  });
}

/** The Content-Length of a body sent without Content-Encoding (or `identity`); else null. */
function declaredIdentityLength(raw: IncomingMessage): number | null {
  const encoding = (raw.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const length = raw.headers['content-length'];
  if (encoding !== 'identity' || length === undefined || !/^\d{1,15}$/.test(length)) return null;
  return Number(length);
}

/** `json` or `form` for the media types a foreign route reads; null for any other. */
function foreignMediaType(req: IncomingMessage): ReceivedPayload['mediaType'] | null {
  if (typeIs(req, JSON_TYPES)) return 'json';
  if (typeIs(req, [FORM_TYPE])) return 'form';
  return null;
}

function receivedPayload(raw: IncomingMessage & { body?: unknown }): ReceivedPayload | null {
  const mediaType = foreignMediaType(raw);
  if (!mediaType || !Buffer.isBuffer(raw.body)) return null;
  let charset: string | null = null;
  try {
    charset =
      parseContentType(raw.headers['content-type'] ?? '').parameters.charset?.toLowerCase() ?? null;
  } catch {
    throw new ApiError(ErrorCode.UnsupportedMediaType);
  }
  return { bytes: raw.body, mediaType, charset };
}

/** Handler parameter of a `@ForeignPayload` route: the body as received (null: none to read). */
export const ReceivedBody = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): ReceivedPayload | null =>
    ctx.switchToHttp().getRequest<ParleyRequest>().payload ?? null,
);

/** Handler parameter of an `@AcceptsFiles` route: the files a multipart body stored, or null. */
export const Uploads = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): UploadedFiles | null =>
    ctx.switchToHttp().getRequest<ParleyRequest>().uploads ?? null,
);

/**
 * Handler parameter of a `@RawStream` route: the Node request, its body not yet read (Express's
 * request is one; Fastify's wraps one).
 */
export const RequestStream = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): IncomingMessage =>
    nodeRequestOf(ctx.switchToHttp().getRequest<ParleyRequest>()),
);
