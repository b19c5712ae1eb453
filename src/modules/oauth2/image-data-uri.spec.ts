import { decodeImageDataUri } from './image-data-uri';

const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('decodeImageDataUri', () => {
  it('decodes a PNG and hashes its bytes', () => {
    const img = decodeImageDataUri(`data:image/png;base64,${PNG_1PX}`);
    expect(typeof img).toBe('object');
    if (typeof img === 'string') return;
    expect(img.ext).toBe('png');
    expect(img.hash).toMatch(/^[0-9a-f]{32}$/);
    expect(img.bytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it.each([
    ['not a uri', 'data URI'],
    [`data:image/svg+xml;base64,${PNG_1PX}`, 'PNG, JPEG'],
    ['data:image/png;base64,', 'empty'],
    ['data:image/png;base64,@@@', 'data URI'],
  ])('refuses %p', (value, why) => {
    expect(decodeImageDataUri(value)).toEqual(expect.stringContaining(why));
  });
});
