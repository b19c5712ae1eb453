import type { AttachmentPurgeOutcome } from '../../guilds/attachments/attachment-purge';
import type { PurgeAttachmentsResponseSchema } from './purge-attachments.response';

export function toPurgeAttachmentsResponse(
  o: AttachmentPurgeOutcome,
): PurgeAttachmentsResponseSchema {
  return { attachments: o.attachments, bytes: o.bytes, messages: o.messages };
}
