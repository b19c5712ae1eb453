import { ApiError } from '../../../common/errors/api-error';
import type { ReceivedFile } from './attachment-store';
import { fileIndexOf, planAttachments } from './message-attachments';
import type { StoredAttachment } from './stored-attachment';

const file = (id: string, field: string, filename = `${id}.txt`): ReceivedFile => ({
  id,
  field,
  channelId: '1',
  filename,
  content_type: 'text/plain',
  size: 1,
  flags: 0,
});
const kept = (id: string): StoredAttachment => ({
  id,
  filename: `${id}.bin`,
  content_type: 'application/octet-stream',
  size: 2,
  flags: 0,
});
const ids = (list: StoredAttachment[]) => list.map((a) => a.id);

function formErrors(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return (err as ApiError).extra.errors;
  }
  throw new Error('no error');
}

describe('fileIndexOf', () => {
  it('reads Discord’s field names, and nothing else', () => {
    expect(fileIndexOf('files[3]')).toBe(3);
    expect(fileIndexOf('file[0]')).toBe(0);
    expect(fileIndexOf('file')).toBe(0);
    expect(fileIndexOf('file2')).toBe(2);
    expect(fileIndexOf('payload_json')).toBeNull();
    expect(fileIndexOf('files[x]')).toBeNull();
  });
});

describe('planAttachments', () => {
  it('names and describes the files its entries point at, and attaches the others as they are', () => {
    const plan = planAttachments(
      [{ id: 1, filename: 'SPOILER_b.png', description: 'alt' }],
      [file('10', 'files[0]'), file('11', 'files[1]')],
      new Map(),
      [],
    );
    expect(plan.attachments).toEqual([
      expect.objectContaining({
        id: '11',
        filename: 'SPOILER_b.png',
        description: 'alt',
        flags: 8,
      }),
      expect.objectContaining({ id: '10', filename: '10.txt', flags: 0 }),
    ]);
    expect(ids(plan.taken)).toEqual(['11', '10']);
    expect(plan.dropped).toEqual([]);
    // What is stored has no form field or channel.
    expect(plan.attachments[0]).not.toHaveProperty('field');
    expect(plan.attachments[0]).not.toHaveProperty('channelId');
  });

  it('in an edit: keeps what is named, drops the rest; without a list keeps everything', () => {
    const existing = [kept('1'), kept('2')];
    const edit = planAttachments(
      [{ id: '2' }, { id: 0 }],
      [file('3', 'files[0]')],
      new Map(),
      existing,
    );
    expect(ids(edit.attachments)).toEqual(['2', '3']);
    expect(ids(edit.dropped)).toEqual(['1']);
    const all = planAttachments(undefined, [file('4', 'files[0]')], new Map(), existing);
    expect(ids(all.attachments)).toEqual(['1', '2', '4']);
    expect(all.dropped).toEqual([]);
  });

  it('takes uploaded files by entry', () => {
    const plan = planAttachments(
      [{ id: 7, uploaded_filename: 'u/x.bin' }],
      [],
      new Map([[0, kept('9')]]),
      [],
    );
    expect(ids(plan.taken)).toEqual(['9']);
  });

  it('refuses an entry that names nothing, and an eleventh attachment', () => {
    expect(formErrors(() => planAttachments([{ id: 5 }], [], new Map(), []))).toEqual([
      expect.objectContaining({ path: 'attachments.0.id', code: 'BASE_TYPE_INVALID' }),
    ]);
    const eleven = Array.from({ length: 11 }, (_, i) => file(String(100 + i), `files[${i}]`));
    expect(formErrors(() => planAttachments(undefined, eleven, new Map(), []))).toEqual([
      expect.objectContaining({ path: 'attachments', code: 'BASE_TYPE_MAX_LENGTH' }),
    ]);
    // One file named twice is attached once.
    expect(
      formErrors(() =>
        planAttachments([{ id: 0 }, { id: 0 }], [file('1', 'files[0]')], new Map(), []),
      ),
    ).toEqual([expect.objectContaining({ path: 'attachments.1.id' })]);
  });
});
