import {
  attachmentEtag,
  contentDisposition,
  noneMatch,
  rangeAllowed,
  requestedRange,
} from './download-headers';

describe('requestedRange', () => {
  const size = 100;
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=10-', { start: 10, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-1000', { start: 0, end: 99 }],
    ['bytes=90-1000', { start: 90, end: 99 }],
    ['bytes=99-99', { start: 99, end: 99 }],
    ['Bytes= 5 - 6 ', { start: 5, end: 6 }],
  ])('%s → a range', (header, range) => {
    expect(requestedRange(header, size)).toEqual({ kind: 'range', range });
  });

  it.each([
    'bytes=100-',
    'bytes=100-200',
    'bytes=9-1',
    'bytes=-0',
    'bytes=-',
    'bytes=abc',
    'bytes=1-2-3',
    'bytes=',
  ])('%s → unsatisfiable', (header) => {
    expect(requestedRange(header, size)).toEqual({ kind: 'unsatisfiable' });
  });

  it('answers the whole file for no header, another unit or several ranges', () => {
    expect(requestedRange(undefined, size)).toEqual({ kind: 'all' });
    expect(requestedRange('items=0-1', size)).toEqual({ kind: 'all' });
    expect(requestedRange('bytes=0-1,5-6', size)).toEqual({ kind: 'all' });
  });

  it('finds no byte of an empty file', () => {
    expect(requestedRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(requestedRange('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});

describe('conditional headers', () => {
  const etag = attachmentEtag('123', 45);

  it('names a file by its id and size, strongly', () => {
    expect(etag).toBe('"123-45"');
  });

  it('matches If-None-Match weakly, in a list, and *', () => {
    expect(noneMatch(undefined, etag)).toBe(false);
    expect(noneMatch('"123-45"', etag)).toBe(true);
    expect(noneMatch('W/"123-45"', etag)).toBe(true);
    expect(noneMatch('"x", "123-45"', etag)).toBe(true);
    expect(noneMatch('*', etag)).toBe(true);
    expect(noneMatch('"123-46"', etag)).toBe(false);
  });

  it('honours a Range under If-Range only for the exact strong ETag', () => {
    expect(rangeAllowed(undefined, etag)).toBe(true);
    expect(rangeAllowed('"123-45"', etag)).toBe(true);
    expect(rangeAllowed('W/"123-45"', etag)).toBe(false);
    expect(rangeAllowed('Wed, 21 Oct 2015 07:28:00 GMT', etag)).toBe(false);
  });
});

describe('contentDisposition', () => {
  it('gives a plain name as it is', () => {
    expect(contentDisposition('inline', 'cat.png')).toBe(
      `inline; filename="cat.png"; filename*=UTF-8''cat.png`,
    );
  });

  it('escapes UTF-8 for filename* and keeps an ASCII fallback without quotes or escapes', () => {
    expect(contentDisposition('attachment', 'résumé "final" 100%\\x.pdf')).toBe(
      `attachment; filename="r_sum_ _final_ 100__x.pdf"; ` +
        `filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%20100%25%5Cx.pdf`,
    );
  });

  it("escapes what RFC 8187's attr-char leaves out, and a lone surrogate", () => {
    expect(contentDisposition('attachment', "it's (1)*.txt")).toBe(
      `attachment; filename="it's (1)*.txt"; filename*=UTF-8''it%27s%20%281%29%2A.txt`,
    );
    expect(contentDisposition('attachment', 'a\ud800b')).toBe(
      `attachment; filename="a_b"; filename*=UTF-8''a%EF%BF%BDb`,
    );
  });
});
