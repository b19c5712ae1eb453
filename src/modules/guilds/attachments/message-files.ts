import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AttachmentRefDto } from '../dto/attachment-ref.dto';
import { AttachmentStore, type ReceivedFile } from './attachment-store';
import { AttachmentUploadsService } from './attachment-uploads.service';
import { planAttachments, type AttachmentPlan } from './message-attachments';
import type { StoredAttachment } from './stored-attachment';

/**
 * A user's or bot's message and its files, in the message's transaction: what a body's
 * `attachments` and this request's files come to (message-attachments.ts), with the files it
 * names by `uploaded_filename` (upload URLs) taken — locked, one message per upload —, then the
 * plan written to the attachments' rows.
 */
@Injectable()
export class MessageFiles {
  constructor(
    private readonly store: AttachmentStore,
    private readonly uploads: AttachmentUploadsService,
  ) {}

  async plan(
    m: EntityManager,
    userId: string,
    channelId: string,
    refs: AttachmentRefDto[] | undefined,
    files: readonly ReceivedFile[],
    existing: readonly StoredAttachment[],
  ): Promise<AttachmentPlan> {
    const named = (refs ?? []).flatMap((ref, at) =>
      ref.uploaded_filename !== undefined
        ? [{ ...ref, uploaded_filename: ref.uploaded_filename, at }]
        : [],
    );
    const uploaded = new Map<number, StoredAttachment>();
    if (named.length > 0) {
      const resolved = await this.uploads.resolveUploads(
        m,
        userId,
        channelId,
        named,
        named.map((n) => n.at),
      );
      named.forEach((n, k) => uploaded.set(n.at, resolved[k]));
    }
    return planAttachments(refs, files, uploaded, existing);
  }
}
