import { imageDimensions, servedInline, sniffContentType } from './sniff';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAEklEQVR42mP8z8DwnwEIGBgYAAAv8gP9Zq7dWQAAAABJRU5ErkJggg==',
  'base64',
);
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([5, 0, 7, 0]), Buffer.alloc(20)]);

describe('sniffContentType', () => {
  it('reads binary signatures, whatever the file is called', () => {
    expect(sniffContentType(PNG)).toBe('image/png');
    expect(sniffContentType(GIF)).toBe('image/gif');
    expect(sniffContentType(Buffer.from('%PDF-1.7\n...'))).toBe('application/pdf');
  });

  it('finds markup a browser would render: HTML (after whitespace and a BOM), SVG, XML', () => {
    expect(sniffContentType(Buffer.from('<!DOCTYPE html><p>hi'))).toBe('text/html');
    expect(sniffContentType(Buffer.from('\ufeff  \n<html><body>'))).toBe('text/html');
    expect(sniffContentType(Buffer.from('<script>alert(1)</script>'))).toBe('text/html');
    expect(sniffContentType(Buffer.from('<!-- x --><b>bold'))).toBe('text/html');
    expect(sniffContentType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe(
      'image/svg+xml',
    );
    expect(sniffContentType(Buffer.from('<?xml version="1.0"?><svg></svg>'))).toBe('image/svg+xml');
    expect(sniffContentType(Buffer.from('<?xml version="1.0"?><feed/>'))).toBe('text/xml');
    // A tag name that only starts like one of HTML's is not HTML.
    expect(sniffContentType(Buffer.from('<bogus>'))).toBe('text/plain; charset=utf-8');
  });

  it('tells text from binary, and UTF-8 from other text', () => {
    expect(sniffContentType(Buffer.from('héllo\tworld\r\n'))).toBe('text/plain; charset=utf-8');
    expect(sniffContentType(Buffer.from([0x68, 0xe9, 0x6c]))).toBe('text/plain');
    expect(sniffContentType(Buffer.from([0, 1, 2, 3, 255]))).toBe('application/octet-stream');
    expect(sniffContentType(Buffer.alloc(0))).toBe('application/octet-stream');
  });
});

describe('imageDimensions', () => {
  it('reads a raster image header, and nothing else', () => {
    expect(imageDimensions(PNG, 'image/png')).toEqual({ width: 2, height: 3 });
    expect(imageDimensions(GIF, 'image/gif')).toEqual({ width: 5, height: 7 });
    expect(imageDimensions(Buffer.from('<svg width="9" height="9"/>'), 'image/svg+xml')).toBeNull();
    expect(imageDimensions(PNG.subarray(0, 10), 'image/png')).toBeNull();
    expect(imageDimensions(PNG, 'text/plain')).toBeNull();
  });
});

describe('servedInline', () => {
  it('inlines raster images, audio and video only', () => {
    expect(servedInline('image/png')).toBe(true);
    expect(servedInline('video/mp4')).toBe(true);
    expect(servedInline('audio/mpeg')).toBe(true);
    expect(servedInline('image/svg+xml')).toBe(false);
    expect(servedInline('text/html')).toBe(false);
    expect(servedInline('application/pdf')).toBe(false);
  });
});
