import { attachmentEntryName, exportAttachment } from './archive-export';

describe('archive export: attachments', () => {
  it('puts a file under attachments/<id>/, never outside its folder', () => {
    expect(attachmentEntryName('42', 'photo.png')).toBe('attachments/42/photo.png');
    expect(attachmentEntryName('42', '../../etc/passwd')).toBe('attachments/42/.._.._etc_passwd');
    expect(attachmentEntryName('42', 'a\\b.txt')).toBe('attachments/42/a_b.txt');
  });

  it('lists a file with its public fields and where its bytes are', () => {
    const row = {
      id: '42',
      channel_id: '7',
      message_id: null,
      filename: 'notes.txt',
      content_type: 'text/plain; charset=utf-8',
      size: '12',
      created_at: new Date('2026-11-27T10:00:00Z'),
      blob_key: 'attachments/7/42',
    };
    expect(exportAttachment(row)).toEqual({
      id: '42',
      channel_id: '7',
      message_id: null,
      filename: 'notes.txt',
      content_type: 'text/plain; charset=utf-8',
      size: 12,
      created_at: '2026-11-27T10:00:00.000Z',
      file: 'attachments/42/notes.txt',
    });
  });
});
