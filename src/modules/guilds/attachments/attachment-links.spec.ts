import type { AppConfig } from '../../../config/app.config';
import { AttachmentLinks } from './attachment-links';

const config = {
  secretKey: Buffer.alloc(32, 7),
  apiUrl: 'https://chat.example/v1',
  attachments: { urlTtlSeconds: 3600 },
} as unknown as AppConfig;

const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('AttachmentLinks', () => {
  const links = new AttachmentLinks(config);
  const now = Date.UTC(2026, 10, 27, 12);

  it('signs Discord-style links that verify until they expire', () => {
    const url = links.url('11', '22', 'a b.png', now);
    expect(url).toMatch(
      /^https:\/\/chat\.example\/v1\/attachments\/11\/22\/a%20b\.png\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]{64}$/,
    );
    const q = queryOf(url);
    expect(parseInt(q.ex, 16) - parseInt(q.is, 16)).toBe(3600);
    expect(links.verify('11', '22', q, now + 1000)).toBe(true);
    expect(links.verify('11', '22', q, now + 3601 * 1000)).toBe(false);
  });

  it('refuses another attachment, another channel, a changed expiry or signature', () => {
    const q = queryOf(links.url('11', '22', 'x', now));
    expect(links.verify('11', '23', q, now)).toBe(false);
    expect(links.verify('12', '22', q, now)).toBe(false);
    expect(links.verify('11', '22', { ...q, ex: (parseInt(q.ex, 16) + 1).toString(16) }, now)).toBe(
      false,
    );
    expect(
      links.verify(
        '11',
        '22',
        { ...q, hm: q.hm.replace(/.$/, (c) => (c === '0' ? '1' : '0')) },
        now,
      ),
    ).toBe(false);
    expect(links.verify('11', '22', { ex: q.ex, is: q.is }, now)).toBe(false);
  });

  it('another SECRET_KEY signs other links', () => {
    const other = new AttachmentLinks({ ...config, secretKey: Buffer.alloc(32, 8) } as AppConfig);
    expect(other.verify('11', '22', queryOf(links.url('11', '22', 'x', now)), now)).toBe(false);
  });

  it('parses its links back to channel and attachment', () => {
    expect(links.parse(links.url('11', '22', 'x.txt', now))).toEqual({
      channelId: '11',
      attachmentId: '22',
    });
    expect(links.parse('not a url')).toBeNull();
    expect(links.parse('https://chat.example/v1/channels/1')).toBeNull();
  });
});
