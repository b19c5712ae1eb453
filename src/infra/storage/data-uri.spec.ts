import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../common/errors/api-error';
import { AssetStorage } from './asset-storage.service';
import { LocalBlobStorage } from './blob-storage';
import { MAX_IMAGE_BYTES, parseImageDataUri } from './data-uri';

// The smallest valid 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const pngUri = `data:image/png;base64,${PNG.toString('base64')}`;

function expectFormError(fn: () => unknown, path = 'avatar'): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.status).toBe(400);
    const body = err.toBody() as { code: string; errors: Array<{ path: string; code: string }> };
    expect(body.code).toBe('INVALID_FORM_BODY');
    expect(body.errors[0].path).toBe(path);
    return err;
  }
  throw new Error('expected an error');
}

describe('parseImageDataUri', () => {
  it('parses a png data URI', () => {
    const img = parseImageDataUri(pngUri, 'avatar');
    expect(img.ext).toBe('png');
    expect(img.mime).toBe('image/png');
    expect(img.data.equals(PNG)).toBe(true);
  });

  it('accepts jpeg, gif and webp by their magic numbers', () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
    expect(parseImageDataUri(`data:image/jpeg;base64,${jpeg.toString('base64')}`, 'x').ext).toBe(
      'jpg',
    );
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');
    expect(parseImageDataUri(`data:image/gif;base64,${gif.toString('base64')}`, 'x').ext).toBe(
      'gif',
    );
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
    expect(parseImageDataUri(`data:image/webp;base64,${webp.toString('base64')}`, 'x').ext).toBe(
      'webp',
    );
  });

  it.each([
    ['a non-string', 42],
    ['plain text', 'hello'],
    ['a URL', 'https://example.com/a.png'],
    ['a non-base64 data URI', `data:image/png,${PNG.toString('hex')}`],
    [
      'an unsupported type',
      `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`,
    ],
    ['a non-image type', `data:text/plain;base64,${Buffer.from('hi').toString('base64')}`],
    ['broken base64', 'data:image/png;base64,abc$def'],
    ['base64 of the wrong length', 'data:image/png;base64,abcde'],
    ['empty data', 'data:image/png;base64,'],
    ['bytes that are not the declared type', `data:image/gif;base64,${PNG.toString('base64')}`],
  ])('rejects %s with 400 INVALID_FORM_BODY', (_label, value) => {
    expectFormError(() => parseImageDataUri(value, 'avatar'));
  });

  it('rejects images over 8 MiB', () => {
    const big = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES)]);
    const err = expectFormError(
      () => parseImageDataUri(`data:image/png;base64,${big.toString('base64')}`, 'icon'),
      'icon',
    );
    expect(JSON.stringify(err.toBody())).toContain('IMAGE_TOO_LARGE');
  });
});

describe('AssetStorage on local disk', () => {
  it('stores content-addressed files and returns the hash', async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-assets-'));
    const assets = new AssetStorage(new LocalBlobStorage(root));
    const hash = await assets.storeImage('icons', '123', pngUri, 'icon');
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    const file = join(root, 'assets', 'icons', '123', `${hash}.png`);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file).equals(PNG)).toBe(true);
    expect(await assets.storeImage('icons', '123', pngUri, 'icon')).toBe(hash);
    expect(await assets.storeImage('icons', '123', null, 'icon')).toBeNull();
  });

  it('refuses keys that escape the root', async () => {
    const storage = new LocalBlobStorage(mkdtempSync(join(tmpdir(), 'parley-assets-')));
    await expect(storage.put('../evil', Buffer.from('x'))).rejects.toThrow('invalid blob key');
  });
});
