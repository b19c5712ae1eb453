/** Discord's attachment object, as messages and their events show it. */
export class AttachmentResponse {
  id: string;
  filename: string;
  /** The description given with it (alt text), if any. */
  description?: string;
  /** Its media type, sniffed from its bytes when it was stored (never the uploader's word). */
  content_type: string;
  /** Its size in bytes. */
  size: number;
  /**
   * A signed link that downloads it until it expires (`ex`, hex Unix seconds; `is`, when it was
   * issued; `hm`, the signature). `POST /attachments/refresh-urls` gives fresh ones.
   */
  url: string;
  /** The same link (Parley has no media proxy). */
  proxy_url: string;
  /** Pixel width of an image (read from its header), else null. */
  width?: number | null;
  /** Pixel height of an image (read from its header), else null. */
  height?: number | null;
  /** Whether it belongs to an ephemeral message (removed with it). */
  ephemeral?: boolean;
  /** Discord's attachment flags (8: IS_SPOILER, from a `SPOILER_` filename). */
  flags: number;
}
