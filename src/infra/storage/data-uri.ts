import { ApiError } from '../../common/errors/api-error';
import { FieldErrorCode } from '../../common/errors/field-error-code';

/** Largest decoded image accepted in a Base64ImageType field. */
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

const TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
} as const;

type Ext = (typeof TYPES)[keyof typeof TYPES];

export interface ParsedImage {
  mime: string;
  ext: Ext;
  data: Buffer;
}

const DATA_URI = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;

// Magic numbers, so that a declared type cannot smuggle another kind of file.
function sniff(data: Buffer): Ext | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) {
    return 'png';
  }
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpg';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('latin1'))) {
    return 'gif';
  }
  if (
    data.length >= 12 &&
    data.subarray(0, 4).toString('latin1') === 'RIFF' &&
    data.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'webp';
  }
  return null;
}

/**
 * Parses a Base64ImageType value (`data:image/png;base64,...`): png, jpeg, gif or webp, at most
 * 8 MiB decoded, and the bytes must really be of the declared type. Anything else is a 400
 * INVALID_FORM_BODY on `path`.
 */
export function parseImageDataUri(value: unknown, path: string): ParsedImage {
  const fail = (message: string) => ApiError.field(path, FieldErrorCode.ImageInvalid, message);
  if (typeof value !== 'string') throw fail('Expected a base64 data URI.');
  // Cheap bound before running the regex over a huge string (base64 is 4/3 of the bytes).
  if (value.length > Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 64) {
    throw ApiError.field(path, FieldErrorCode.ImageTooLarge);
  }
  const m = DATA_URI.exec(value.trim());
  if (!m) throw fail('Expected a data URI of the form data:image/png;base64,....');
  const mime = m[1].toLowerCase();
  const declared = (TYPES as Record<string, Ext | undefined>)[mime];
  if (!declared) throw fail('Image type must be png, jpeg, gif or webp.');
  if (m[2].length % 4 !== 0) throw fail('Invalid base64 data.');
  const data = Buffer.from(m[2], 'base64');
  if (data.length === 0) throw fail('Image is empty.');
  if (data.length > MAX_IMAGE_BYTES) {
    throw ApiError.field(path, FieldErrorCode.ImageTooLarge);
  }
  if (sniff(data) !== declared) throw fail('Image data does not match its declared type.');
  return { mime: mime === 'image/jpg' ? 'image/jpeg' : mime, ext: declared, data };
}
