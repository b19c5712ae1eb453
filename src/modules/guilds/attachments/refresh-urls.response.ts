/** A link given to `POST /attachments/refresh-urls` and its fresh form. */
export class RefreshedUrlResponse {
  /** The link as it was sent. */
  original: string;
  /** The same file's link, signed now (valid ATTACHMENT_URL_TTL seconds). */
  refreshed: string;
}

/** Discord's answer to `POST /attachments/refresh-urls`. */
export class RefreshUrlsResponse {
  /**
   * One entry per link the caller may still see (in the order sent); links to files that are gone,
   * to messages the caller cannot read, and anything that is not an attachment link are left out.
   */
  refreshed_urls: RefreshedUrlResponse[];
}
