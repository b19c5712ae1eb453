import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBlobStorage } from './blob-storage';

describe('LocalBlobStorage list and delete', () => {
  it('lists the files of one folder with their sizes, skipping temp files and sub-folders', async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
    const blobs = new LocalBlobStorage(root);
    await blobs.put('assets/icons/1/a.png', Buffer.alloc(10));
    await blobs.put('assets/icons/1/b.gif', Buffer.alloc(3));
    await blobs.put('assets/icons/1/sub/c.png', Buffer.alloc(1));
    writeFileSync(join(root, 'assets/icons/1/d.png.1.2.tmp'), 'x');
    const listed = await blobs.list('assets/icons/1');
    expect(listed.sort((x, y) => x.key.localeCompare(y.key))).toEqual([
      { key: 'assets/icons/1/a.png', size: 10 },
      { key: 'assets/icons/1/b.gif', size: 3 },
    ]);
    expect(await blobs.list('assets/icons/2')).toEqual([]);
  });

  it('deletes a blob and returns the bytes freed; 0 when absent', async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
    const blobs = new LocalBlobStorage(root);
    await blobs.put('assets/banners/7/x.png', Buffer.alloc(42));
    expect(await blobs.delete('assets/banners/7/x.png')).toBe(42);
    expect(await blobs.delete('assets/banners/7/x.png')).toBe(0);
    expect(await blobs.list('assets/banners/7')).toEqual([]);
  });

  it('refuses keys outside the root and reports other failures', async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
    const blobs = new LocalBlobStorage(root);
    await expect(blobs.delete('../x')).rejects.toThrow('invalid blob key');
    await expect(blobs.list('../x')).rejects.toThrow('invalid blob key');
    // A folder where a file is expected: unlink fails with something other than ENOENT.
    await mkdir(join(root, 'assets/icons/9/dir.png'), { recursive: true });
    await expect(blobs.delete('assets/icons/9/dir.png')).rejects.toThrow();
  });
});
