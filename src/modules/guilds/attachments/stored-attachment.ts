/**
 * What a message keeps of each of its attachments (`messages.attachments`, jsonb): the public
 * fields without the link, which is signed when the message is shown (AttachmentLinks).
 */
export interface StoredAttachment {
  id: string;
  filename: string;
  description?: string;
  content_type: string;
  size: number;
  width?: number | null;
  height?: number | null;
  flags: number;
  ephemeral?: boolean;
}

/** Discord's IS_SPOILER attachment flag, set for a filename starting with `SPOILER_`. */
export const ATTACHMENT_FLAG_SPOILER = 1 << 3;
