import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { FieldErrorCode } from '../errors/field-error-code';
import { checkJsonText } from './json-check';
import {
  MAX_DTO_JSON_ITEMS,
  MAX_JSON_DEPTH,
  quoteUnsafeIntegers,
  type JsonTextFindings,
} from './json-limits';

/** A file part as the form names it. */
export interface FilePart {
  /** The form field (`files[0]`, `file`…). */
  field: string;
  /** The filename the client gave (not trusted: the intake cleans it). */
  filename: string;
}

/**
 * Where a route's uploaded files go, opened for one request once the caller may upload there
 * (FileIntakes.open). `receive` stores one file as it streams (failing past `maxFileBytes`);
 * `discard` lets go of files a request stored but did not use.
 */
export interface FileIntake<F = unknown> {
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  receive(source: Readable, part: FilePart): Promise<F>;
  discard(files: F[]): Promise<void>;
}

/**
 * The files a multipart request stored, for its handler. They are discarded when the response
 * ends unless the handler kept them (`keep()`, once the rows that hold them are committed).
 */
export class UploadedFiles<F = unknown> {
  private kept = false;

  constructor(
    readonly files: F[],
    private readonly intake: FileIntake<F>,
  ) {}

  /** The files now belong to what the request wrote: nothing to discard. */
  keep(): void {
    this.kept = true;
  }

  /** Called when the response ended: a file nobody kept is deleted. */
  settle(): Promise<void> {
    if (this.kept || this.files.length === 0) return Promise.resolve();
    this.kept = true;
    return this.intake.discard(this.files);
  }
}

/** What a multipart body held: the JSON payload (or the plain fields) and the stored files. */
export interface MultipartBody<F> {
  /** `payload_json` parsed, else the other text fields as strings; undefined when none. */
  body: unknown;
  /** `payload_json`'s bytes as sent (foreign routes parse them themselves). */
  payloadJson: Buffer | null;
  files: F[];
}

/** Text fields besides `payload_json` (Discord takes `content` and the like as fields too). */
const MAX_FIELDS = 20;
/** Room for part headers and boundaries on top of the files and the payload. */
const ENVELOPE_BYTES = 64 * 1024;

/** Whether a request's body is `multipart/form-data`. */
export function isMultipart(req: IncomingMessage): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(req.headers['content-type'] ?? '');
}

function tooLarge(): ApiError {
  return new ApiError(ErrorCode.PayloadTooLarge);
}

function tooManyFiles(max: number): ApiError {
  return ApiError.field(
    'files',
    FieldErrorCode.BaseTypeMaxLength,
    `At most ${max} files may be attached to a message.`,
  );
}

/**
 * Reads a `multipart/form-data` body with busboy, streaming each file part into `intake` as it
 * arrives — one at a time, never held whole — and keeping `payload_json` (at most `jsonLimit`
 * bytes, checked like any JSON body). A declared Content-Length beyond what the files and payload
 * may add up to is refused before a byte is read; a file past its limit fails while streaming
 * (413), an 11th file is refused, and a client gone mid-upload ends the read. On any failure the
 * files already stored are discarded before the error is thrown.
 */
export async function readMultipart<F>(
  raw: IncomingMessage,
  intake: FileIntake<F>,
  jsonLimit: number,
): Promise<MultipartBody<F>> {
  const declared = raw.headers['content-length'];
  const ceiling = intake.maxFiles * intake.maxFileBytes + jsonLimit + ENVELOPE_BYTES;
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > ceiling) {
    throw tooLarge();
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: raw.headers,
      defParamCharset: 'utf8',
      limits: {
        fields: MAX_FIELDS + 1,
        fieldSize: jsonLimit,
        files: intake.maxFiles,
        // One byte more than allowed: the intake's own guard sees the overflow and answers 413.
        fileSize: intake.maxFileBytes + 1,
        parts: MAX_FIELDS + 1 + intake.maxFiles,
        headerPairs: 20,
      },
    });
  } catch {
    throw new ApiError(ErrorCode.BadRequest, 'The multipart body has no boundary.');
  }
  const stored: Array<Promise<F>> = [];
  const fields: Record<string, string> = {};
  let payloadJson: Buffer | null = null;
  let payloadPart: Promise<void> = Promise.resolve();

  /** File parts whose bytes may still be flowing (ended ones are dropped on end). */
  const open = new Set<Readable>();
  let failed = false;
  const done = new Promise<void>((resolve, reject) => {
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      const cause = err instanceof Error ? err : new ApiError(ErrorCode.BadRequest);
      for (const stream of open) stream.destroy(cause);
      raw.unpipe(parser);
      // What is left of the body is not read: the answer closes the connection.
      raw.pause();
      parser.destroy();
      reject(cause);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) return fail(tooLarge());
      if (name === 'payload_json') payloadJson = Buffer.from(value, 'utf8');
      else fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      // `payload_json` sent as a part with a filename (a Blob: Swagger UI, some form libraries)
      // is still the JSON, read here within its limit, not a file.
      if (field === 'payload_json') {
        payloadPart = readPart(stream, jsonLimit).then(
          (bytes) => {
            payloadJson = bytes;
          },
          (err: unknown) => fail(err),
        );
        return;
      }
      // One file at a time: the next part's bytes wait until this one is stored.
      open.add(stream);
      stream.once('end', () => open.delete(stream));
      // A part failed before its turn (destroyed in `fail`): its error is the request's, told once.
      stream.on('error', () => undefined);
      const previous = stored.at(-1) ?? Promise.resolve();
      const part: FilePart = { field, filename: info.filename ?? '' };
      const receiving = previous.then(() =>
        failed ? Promise.reject(new ApiError(ErrorCode.BadRequest)) : intake.receive(stream, part),
      );
      stored.push(receiving);
      receiving.catch((err: unknown) => {
        stream.resume();
        fail(err);
      });
    });
    parser.on('filesLimit', () => fail(tooManyFiles(intake.maxFiles)));
    parser.on('fieldsLimit', () =>
      fail(new ApiError(ErrorCode.BadRequest, 'Too many form fields.')),
    );
    parser.on('partsLimit', () => fail(tooManyFiles(intake.maxFiles)));
    parser.on('error', (err) =>
      fail(
        err instanceof ApiError
          ? err
          : new ApiError(ErrorCode.BadRequest, 'The multipart body could not be parsed.'),
      ),
    );
    parser.on('close', () => {
      if (!failed) resolve();
    });
    // The request closed before its end was read: the client went away, or its connection was
    // cut (a Content-Length shorter than what it sent makes the rest a bad next request, and
    // Node closes the socket while the body's last bytes still wait in the stream).
    const gone = (): void => {
      if (!raw.readableEnded) {
        fail(new ApiError(ErrorCode.BadRequest, 'The request body ended early.'));
      }
    };
    raw.on('aborted', gone);
    raw.on('close', gone);
    raw.on('error', gone);
    raw.pipe(parser);
  });

  // The parse may end before the last file is stored (or refused): wait for both.
  let failure: { reason: unknown } | null = null;
  await done.catch((reason: unknown) => (failure = { reason }));
  await payloadPart;
  const settled = await Promise.allSettled(stored);
  const files = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  failure ??= settled.find((s): s is PromiseRejectedResult => s.status === 'rejected') ?? null;
  if (failure) {
    await intake.discard(files).catch(() => undefined);
    throw failure.reason;
  }
  const json: Buffer | null = payloadJson;
  return { body: json ? parsePayloadJson(json) : bodyOfFields(fields), payloadJson: json, files };
}

/** A part's bytes, at most `limit` of them (413 past it). */
function readPart(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.destroy();
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks, size)));
    stream.on('error', reject);
  });
}

/** The text fields as a body, or undefined when there were none. */
function bodyOfFields(fields: Record<string, string>): Record<string, string> | undefined {
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** `payload_json` checked as any JSON body is (UTF-8, depth, items, long integers kept). */
function parsePayloadJson(bytes: Buffer): unknown {
  const found: JsonTextFindings = { longDigitRuns: false };
  checkJsonText(bytes, null, { maxDepth: MAX_JSON_DEPTH, maxItems: MAX_DTO_JSON_ITEMS }, found);
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(found.longDigitRuns ? quoteUnsafeIntegers(text) : text) as unknown;
  } catch {
    throw new ApiError(ErrorCode.InvalidJson, 'payload_json is not valid JSON.');
  }
}
