import { ApiError, fieldError, type FieldError } from '../../../common/errors/api-error';
import { FieldErrorCode } from '../../../common/errors/field-error-code';
import type { AttachmentRefDto } from '../dto/attachment-ref.dto';
import { cleanFilename, type ReceivedFile } from './attachment-store';
import { ATTACHMENT_FLAG_SPOILER, type StoredAttachment } from './stored-attachment';

/** At most this many attachments on a message (Discord's limit). */
export const MAX_MESSAGE_ATTACHMENTS = 10;

/** The index a file part's field names: `files[3]` → 3, `file` → 0, `file2` → 2; else null. */
export function fileIndexOf(field: string): number | null {
  const m = /^files?\[(\d{1,3})\]$/.exec(field) ?? /^file(\d{0,3})$/.exec(field);
  if (!m) return null;
  return m[1] === '' ? 0 : Number(m[1]);
}

/** What a message's attachments become. */
export interface AttachmentPlan {
  /** What the message shows, in order. */
  attachments: StoredAttachment[];
  /** Files it takes now (this request's and uploaded ones): their rows get its id. */
  taken: StoredAttachment[];
  /** Attachments an edit let go of (their blobs are deleted by the sweep). */
  dropped: StoredAttachment[];
}

function named(file: StoredAttachment, ref: AttachmentRefDto | null): StoredAttachment {
  const filename = ref?.filename !== undefined ? cleanFilename(ref.filename) : file.filename;
  const out: StoredAttachment = {
    id: file.id,
    filename,
    content_type: file.content_type,
    size: file.size,
    width: file.width ?? null,
    height: file.height ?? null,
    flags: filename.startsWith('SPOILER_')
      ? file.flags | ATTACHMENT_FLAG_SPOILER
      : file.flags & ~ATTACHMENT_FLAG_SPOILER,
  };
  const description = ref?.description ?? file.description;
  if (description) out.description = description;
  if (file.ephemeral) out.ephemeral = true;
  return out;
}

/**
 * Discord's rules for a message body's `attachments` beside its files: an entry names a file of
 * this request by the `n` of `files[n]`, an uploaded file (resolved by the caller, in `uploaded`
 * by entry index), or — in an edit — an attachment kept (by id); files no entry names are
 * attached as they are. Without `attachments`, an edit keeps every attachment. 400 with field
 * errors for an entry that names nothing, or more than ten in all.
 */
export function planAttachments(
  refs: AttachmentRefDto[] | undefined,
  received: readonly ReceivedFile[],
  uploaded: ReadonlyMap<number, StoredAttachment>,
  existing: readonly StoredAttachment[],
): AttachmentPlan {
  const byIndex = new Map<number, ReceivedFile>();
  received.forEach((f, position) => byIndex.set(fileIndexOf(f.field) ?? position, f));
  const kept = new Map(existing.map((a) => [a.id, a]));
  const attachments: StoredAttachment[] = [];
  const taken: StoredAttachment[] = [];
  const used = new Set<string>();
  const errors: FieldError[] = [];
  if (refs === undefined) attachments.push(...existing);
  (refs ?? []).forEach((ref, i) => {
    const upload = uploaded.get(i);
    const id = String(ref.id);
    const file = upload ?? (/^\d{1,3}$/.test(id) ? byIndex.get(Number(id)) : undefined);
    if (file && !used.has(file.id)) {
      used.add(file.id);
      const shown = named(file, ref);
      attachments.push(shown);
      taken.push(shown);
      return;
    }
    const keep = kept.get(id);
    if (keep && !used.has(keep.id)) {
      used.add(keep.id);
      attachments.push(ref.description === undefined ? keep : named(keep, ref));
      return;
    }
    errors.push(
      fieldError(
        `attachments.${i}.id`,
        FieldErrorCode.BaseTypeInvalid,
        'No such file or attachment.',
      ),
    );
  });
  for (const f of received) {
    if (used.has(f.id)) continue;
    const shown = named(f, null);
    attachments.push(shown);
    taken.push(shown);
  }
  if (errors.length > 0) throw ApiError.form(errors);
  if (attachments.length > MAX_MESSAGE_ATTACHMENTS) {
    throw ApiError.field(
      'attachments',
      FieldErrorCode.BaseTypeMaxLength,
      `At most ${MAX_MESSAGE_ATTACHMENTS} attachments.`,
    );
  }
  const shownIds = new Set(attachments.map((a) => a.id));
  return { attachments, taken, dropped: existing.filter((a) => !shownIds.has(a.id)) };
}
