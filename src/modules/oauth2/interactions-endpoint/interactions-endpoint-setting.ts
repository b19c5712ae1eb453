import { Injectable } from '@nestjs/common';
import { ApiError } from '../../../common/errors/api-error';
import { FIELD_ERROR_TABLE, FieldErrorCode } from '../../../common/errors/field-error-code';
import { InteractionEndpointClient, type InteractionTarget } from './interaction-endpoint.client';

const FIELD = 'interactions_endpoint_url';
const NOT_VERIFIED = FieldErrorCode.ApplicationInteractionsEndpointUrlInvalid;

/**
 * Setting an application's `interactions_endpoint_url` (the owner's PATCH, or the bot's PATCH
 * /applications/@me): a well-formed http(s) URL is kept only once verified as Discord verifies
 * it; null or empty clears it (interactions then go to the bot's gateway session).
 */
@Injectable()
export class InteractionsEndpointSetting {
  constructor(private readonly client: InteractionEndpointClient) {}

  /** What to store: undefined = unchanged, null = cleared, a URL = verified just now. */
  async resolve(
    app: InteractionTarget,
    value: string | null | undefined,
  ): Promise<string | null | undefined> {
    if (value === undefined) return undefined;
    const url = value?.trim() ?? '';
    if (url === '') return null;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw ApiError.field(FIELD, FieldErrorCode.UrlTypeInvalidUrl);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      throw ApiError.field(FIELD, FieldErrorCode.UrlTypeInvalidScheme);
    }
    if (parsed.username || parsed.password) {
      throw ApiError.field(FIELD, FieldErrorCode.UrlTypeInvalidUrl);
    }
    const verified = await this.client.verify(app, url);
    if (!verified.ok) {
      const why = verified.reason.charAt(0).toUpperCase() + verified.reason.slice(1);
      throw ApiError.field(
        FIELD,
        NOT_VERIFIED,
        `${FIELD_ERROR_TABLE[NOT_VERIFIED].message} ${why}.`,
      );
    }
    return url;
  }
}
