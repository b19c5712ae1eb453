import type { IncomingHttpHeaders } from 'node:http';
import qs from 'qs';
import type { ReceivedPayload } from '../../common/auth/caller';
import { ApiError, type FieldError } from '../../common/errors/api-error';
import { ErrorCode } from '../../common/errors/error-code';
import { FieldErrorCode } from '../../common/errors/field-error-code';
import { checkJsonText } from '../../common/http/json-check';
import { type JsonLimits, MAX_JSON_DEPTH } from '../../common/http/json-limits';
import {
  type Embed,
  MAX_EMBEDS,
  MAX_USERNAME,
  type MessageDraft,
  normalizeDraft,
  urlErrors,
} from '../guilds/embeds/embed';
import { EMBED_LIMITS } from '../guilds/embeds/truncate';
import { transformChatCompat } from './transformers/chatcompat.transformer';
import { transformErrorTracker } from './transformers/errortracker.transformer';
import { asRecord } from './transformers/read';
import { transformRepoHost } from './transformers/repohost.transformer';
import { verifyDeliverySignature, type SignatureScheme } from './webhook-signature';

// Turning a delivery's bytes into the message it posts: signature, decoding, parsing, the
// format's transformer. Pure and synchronous, so it runs the same on the event loop (small
// bodies) or on a worker thread (large ones, delivery-parser.ts): a 25 MiB body of tiny values
// costs seconds of JSON.parse, which must not stall every other request.

/** The four execute routes. */
export type DeliveryFormat = 'plain' | 'repohost' | 'errortracker' | 'chatcompat';

/**
 * Structural limits of a foreign payload. Far above real deliveries (a 24 MiB GitHub push holds
 * ~700,000 items), they bound what a parse may build: eight million `{}` in 23 MiB is refused by
 * the byte scan before JSON.parse starts.
 */
export const FOREIGN_JSON_LIMITS: JsonLimits = { maxDepth: MAX_JSON_DEPTH, maxItems: 2_000_000 };

/** What the body parser in front of the form decoder allowed (body-parser's default). */
const MAX_FORM_PARAMETERS = 1_000;

export interface DeliveryInput {
  format: DeliveryFormat;
  /** The body as received; null when there was none of a JSON or form type. */
  payload: ReceivedPayload | null;
  headers: IncomingHttpHeaders;
  /** The HMAC key of the webhook's signing secret (signed formats); null: none is set. */
  signingKey: Uint8Array | null;
  /** A plain execute that carries files: it may say nothing else (and `payload` may be null). */
  hasFiles?: boolean;
}

/** What rendering answered, in a form that crosses a thread boundary (structured clone). */
export type DeliveryOutcome =
  | { ok: true; draft: MessageDraft | null }
  | { ok: false; code: ErrorCode; message: string; extra: Record<string, unknown> };

const SIGNED: Partial<Record<DeliveryFormat, SignatureScheme>> = {
  repohost: 'repohost',
  errortracker: 'errortracker',
};

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
};

/** Event-name headers, in the order read: GitHub's, then those of its compatible hosts. */
const EVENT_HEADERS = [
  'x-github-event',
  'x-gitea-event',
  'x-forgejo-event',
  'x-gogs-event',
  'x-event-key',
];

export const firstHeader = (headers: IncomingHttpHeaders, names: string[]): string | undefined => {
  for (const name of names) {
    const v = header(headers, name);
    if (v !== undefined) return v;
  }
  return undefined;
};

/**
 * The message a delivery posts (null: nothing to post, e.g. an event that is not rendered).
 * Throws the 4xx ApiError of a bad delivery: a signature that does not match (401, checked over
 * the exact bytes before anything is parsed), a body that is not an object, not UTF-8, too deep
 * or too large in items (400), in another charset (415).
 */
export function renderDelivery(input: DeliveryInput): MessageDraft | null {
  const scheme = SIGNED[input.format];
  if (scheme && input.signingKey) {
    const bytes = input.payload?.bytes ?? Buffer.alloc(0);
    if (!verifyDeliverySignature(scheme, Buffer.from(input.signingKey), input.headers, bytes)) {
      throw new ApiError(ErrorCode.InvalidWebhookSignature);
    }
  }
  const decoded = decode(input.payload);
  const payload = payloadObject(decoded === undefined && input.hasFiles ? {} : decoded);
  switch (input.format) {
    case 'plain':
      return plainDraft(payload, input.hasFiles === true);
    case 'repohost':
      return transformRepoHost(firstHeader(input.headers, EVENT_HEADERS) ?? '', payload);
    case 'errortracker':
      return transformErrorTracker(
        header(input.headers, 'sentry-hook-resource') ?? header(input.headers, 'x-sentry-event'),
        payload,
      );
    case 'chatcompat':
      return transformChatCompat(payload);
  }
}

/** renderDelivery with its 4xx as a value: the entry point of the worker thread. */
export function handle(input: DeliveryInput): DeliveryOutcome {
  try {
    return { ok: true, draft: renderDelivery(input) };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { ok: false, code: err.code, message: err.message, extra: err.extra };
  }
}

/** The parsed body: JSON, or a form (GitHub and Slack also post `payload=<json>`). */
function decode(payload: ReceivedPayload | null): unknown {
  if (!payload) return undefined;
  const bytes = Buffer.from(payload.bytes.buffer, payload.bytes.byteOffset, payload.bytes.length);
  if (payload.mediaType === 'json') return parseJson(bytes, payload.charset);
  const charset = payload.charset ?? 'utf-8';
  if (charset !== 'utf-8' && charset !== 'iso-8859-1') {
    throw new ApiError(ErrorCode.UnsupportedMediaType, `Unsupported charset "${charset}".`);
  }
  const text = bytes.toString(charset === 'utf-8' ? 'utf8' : 'latin1');
  if (text.split('&', MAX_FORM_PARAMETERS + 1).length > MAX_FORM_PARAMETERS) {
    throw new ApiError(ErrorCode.PayloadTooLarge, 'Too many form parameters.');
  }
  // As body-parser's flat (`extended: false`) form parser: no `a[b]` nesting.
  const form = qs.parse(text, {
    allowPrototypes: true,
    depth: 0,
    parameterLimit: MAX_FORM_PARAMETERS,
    charset,
    strictDepth: true,
  });
  if (typeof form.payload === 'string' && Object.keys(form).length === 1) {
    return parseJson(Buffer.from(form.payload, 'utf8'), null);
  }
  return form;
}

function parseJson(bytes: Buffer, charset: string | null): unknown {
  checkJsonText(bytes, charset, FOREIGN_JSON_LIMITS);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ApiError(ErrorCode.InvalidJson);
  }
}

/** A delivery must be a JSON object (or a form); anything else is a 400, never a 500. */
function payloadObject(value: unknown): Record<string, unknown> {
  const record = asRecord(value);
  if (!record) {
    throw ApiError.field(
      'root',
      FieldErrorCode.BaseTypeObject,
      'The request body must be a JSON object.',
    );
  }
  return record;
}

/**
 * Discord-style `{content, embeds, username, avatar_url, attachments}`; unknown fields are
 * ignored. With files, a message may say nothing else.
 */
function plainDraft(p: Record<string, unknown>, hasFiles: boolean): MessageDraft {
  const errors: FieldError[] = [];
  const str = (key: string, max: number): string | undefined => {
    const v = p[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      errors.push({
        path: key,
        code: FieldErrorCode.BaseTypeString,
        message: `${key} must be a string`,
      });
    } else if (v.length > max) {
      errors.push({
        path: key,
        code: FieldErrorCode.BaseTypeMaxLength,
        message: `${key} must be at most ${max} characters`,
      });
    } else return v;
    return undefined;
  };
  const content = str('content', EMBED_LIMITS.content);
  const username = str('username', MAX_USERNAME);
  const avatarUrl = str('avatar_url', 2048);
  let embeds: Embed[] = [];
  if (p.embeds !== undefined && p.embeds !== null) {
    if (!Array.isArray(p.embeds) || !p.embeds.every((e) => asRecord(e) !== undefined)) {
      errors.push({
        path: 'embeds',
        code: FieldErrorCode.BaseTypeArray,
        message: 'embeds must be an array of objects',
      });
    } else if (p.embeds.length > MAX_EMBEDS) {
      errors.push({
        path: 'embeds',
        code: FieldErrorCode.BaseTypeMaxLength,
        message: `At most ${MAX_EMBEDS} embeds`,
      });
    } else embeds = p.embeds as Embed[];
  }
  const attachments = attachmentRefs(p.attachments, errors);
  errors.push(...urlErrors(embeds, avatarUrl));
  if (errors.length > 0) throw ApiError.form(errors);
  const draft = normalizeDraft({ content, username, avatar_url: avatarUrl, embeds });
  if (!draft && !hasFiles) throw new ApiError(ErrorCode.EmptyMessage);
  // Files alone: the name and avatar overrides normalized as a message's (with stand-in text).
  const result =
    draft ?? normalizeDraft({ content: '.', username, avatar_url: avatarUrl, embeds: [] })!;
  if (!draft) delete result.content;
  if (attachments) result.attachments = attachments;
  return result;
}

/** A plain execute's `attachments`: up to ten `{id, filename?, description?}`. */
function attachmentRefs(value: unknown, errors: FieldError[]): MessageDraft['attachments'] {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > 10) {
    errors.push({
      path: 'attachments',
      code: FieldErrorCode.BaseTypeArray,
      message: 'attachments must be an array of at most 10 objects',
    });
    return undefined;
  }
  const refs: NonNullable<MessageDraft['attachments']> = [];
  value.forEach((item: unknown, i) => {
    const r = asRecord(item);
    const id = r?.id;
    const okId =
      (typeof id === 'string' && /^\d{1,20}$/.test(id)) ||
      (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0);
    const filename = r?.filename;
    const description = r?.description;
    const okText = (v: unknown) => v === undefined || (typeof v === 'string' && v.length <= 1024);
    if (!r || !okId || !okText(filename) || !okText(description)) {
      errors.push({
        path: `attachments.${i}`,
        code: FieldErrorCode.BaseTypeInvalid,
        message:
          'An attachment needs an `id` and at most 1024 characters of filename and description.',
      });
      return;
    }
    refs.push({
      id,
      ...(typeof filename === 'string' && filename.length > 0 ? { filename } : {}),
      ...(typeof description === 'string' ? { description } : {}),
    });
  });
  return refs;
}
