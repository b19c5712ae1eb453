import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { jsonBodyVerifier } from './body-reader';
import { MAX_DTO_JSON_ITEMS, MAX_JSON_DEPTH } from './json-limits';

const req = {} as IncomingMessage;
const res = {} as ServerResponse;
const verify = jsonBodyVerifier({ maxDepth: MAX_JSON_DEPTH, maxItems: MAX_DTO_JSON_ITEMS });

function verifyError(body: Buffer, encoding = 'utf-8'): { code: ErrorCode; status: number } | null {
  try {
    verify(req, res, body, encoding);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, status: err.status };
  }
}

describe('jsonBodyVerifier', () => {
  it('passes ordinary UTF-8 JSON, multi-byte characters and surrogate pairs included', () => {
    expect(
      verifyError(Buffer.from(JSON.stringify({ a: ['é', '😀', '\\ud800'], b: { c: [] } }))),
    ).toBeNull();
    expect(verifyError(Buffer.from('{"a":"\\ud83d\\ude00"}'))).toBeNull();
    expect(verifyError(Buffer.alloc(0))).toBeNull();
  });

  it('answers 400 JSON_TOO_DEEP past 32 levels', () => {
    expect(verifyError(Buffer.from('['.repeat(32) + ']'.repeat(32)))).toBeNull();
    expect(verifyError(Buffer.from('['.repeat(2000) + ']'.repeat(2000)))).toEqual({
      code: ErrorCode.JsonTooDeep,
      status: 400,
    });
  });

  it('answers 400 JSON_TOO_MANY_ITEMS past its item limit', () => {
    expect(verifyError(Buffer.from(JSON.stringify({ a: Array(100_000).fill(1) })))).toEqual({
      code: ErrorCode.JsonTooManyItems,
      status: 400,
    });
  });

  it('answers 400 INVALID_JSON for bytes that are not UTF-8 and for lone surrogate escapes', () => {
    const badBytes = Buffer.concat([
      Buffer.from('{"a":"'),
      Buffer.from([0xff, 0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    expect(verifyError(badBytes)).toEqual({ code: ErrorCode.InvalidJson, status: 400 });
    expect(verifyError(Buffer.from('{"a":"\\udc00"}'))).toEqual({
      code: ErrorCode.InvalidJson,
      status: 400,
    });
  });

  it('answers 415 for JSON declared in another charset (RFC 8259 §8.1)', () => {
    expect(verifyError(Buffer.from('{}', 'utf16le'), 'utf-16le')).toEqual({
      code: ErrorCode.UnsupportedMediaType,
      status: 415,
    });
  });
});
