import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
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

describe('LocalBlobStorage file modes (security finding 10)', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('writes blobs 0600 in folders 0700, also through putFile', async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
    const blobs = new LocalBlobStorage(root);
    await blobs.put('archives/user/1/a.zip', Buffer.from('zip'));
    const source = join(mkdtempSync(join(tmpdir(), 'parley-src-')), 'b.zip');
    writeFileSync(source, 'zip', { mode: 0o644 });
    await blobs.putFile('archives/user/1/b.zip', source);
    expect(mode(join(root, 'archives/user/1/a.zip'))).toBe(0o600);
    expect(mode(join(root, 'archives/user/1/b.zip'))).toBe(0o600);
    for (const dir of ['archives', 'archives/user', 'archives/user/1']) {
      expect({ dir, mode: mode(join(root, dir)) }).toEqual({ dir, mode: 0o700 });
    }
  });

  it('closes a top-level folder an older version left open', async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'assets', 'icons'), { recursive: true, mode: 0o755 });
    chmodSync(join(root, 'assets'), 0o755);
    await new LocalBlobStorage(root).put('assets/icons/1/x.png', Buffer.alloc(1));
    expect(mode(join(root, 'assets'))).toBe(0o700);
    // The root (DATA_DIR) is left as it was: the embedded database's user must cross it.
    expect(mode(root)).toBe(0o755);
  });
});
