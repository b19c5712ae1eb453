import { MAX_EMBEDS, isEmptyEmbed, normalizeDraft, normalizeEmbed, urlErrors } from './embed';
import { EMBED_LIMITS } from './truncate';

describe('normalizeEmbed', () => {
  it('drops empty and undefined keys', () => {
    expect(
      normalizeEmbed({
        title: '',
        description: '   ',
        url: undefined,
        color: undefined,
        timestamp: 'not a date',
        author: { name: '', url: 'https://x' },
        footer: { text: '' },
        image: { url: '' },
        thumbnail: { url: ' ' },
        fields: [],
      }),
    ).toEqual({});
  });

  it('keeps valid values and trims urls', () => {
    expect(
      normalizeEmbed({
        title: 'T',
        url: ' https://example.com ',
        color: 0,
        timestamp: '2024-01-02T03:04:05.000Z',
        author: { name: 'A', url: 'https://a', icon_url: '' },
        footer: { text: 'F', icon_url: 'https://f' },
        image: { url: 'https://i' },
      }),
    ).toEqual({
      title: 'T',
      url: 'https://example.com',
      color: 0,
      timestamp: '2024-01-02T03:04:05.000Z',
      author: { name: 'A', url: 'https://a' },
      footer: { text: 'F', icon_url: 'https://f' },
      image: { url: 'https://i' },
    });
  });

  it('rejects colours outside 24-bit RGB', () => {
    expect(normalizeEmbed({ title: 't', color: 0x1000000 }).color).toBeUndefined();
    expect(normalizeEmbed({ title: 't', color: -1 }).color).toBeUndefined();
    expect(normalizeEmbed({ title: 't', color: 1.5 }).color).toBeUndefined();
    expect(normalizeEmbed({ title: 't', color: 0xffffff }).color).toBe(0xffffff);
  });

  it('applies every length limit', () => {
    const long = (n: number) => 'x'.repeat(n + 10);
    const out = normalizeEmbed({
      title: long(EMBED_LIMITS.title),
      description: long(EMBED_LIMITS.description),
      author: { name: long(EMBED_LIMITS.author) },
      footer: { text: long(EMBED_LIMITS.footer) },
      fields: Array.from({ length: 30 }, () => ({
        name: long(EMBED_LIMITS.fieldName),
        value: long(EMBED_LIMITS.fieldValue),
        inline: true,
      })),
    });
    expect(out.title).toHaveLength(EMBED_LIMITS.title);
    expect(out.description).toHaveLength(EMBED_LIMITS.description);
    expect(out.author!.name).toHaveLength(EMBED_LIMITS.author);
    expect(out.footer!.text).toHaveLength(EMBED_LIMITS.footer);
    expect(out.fields).toHaveLength(EMBED_LIMITS.fields);
    expect(out.fields![0].name).toHaveLength(EMBED_LIMITS.fieldName);
    expect(out.fields![0].value).toHaveLength(EMBED_LIMITS.fieldValue);
    expect(out.title!.endsWith('…')).toBe(true);
  });

  it('drops blank fields and fills a single blank side with a zero-width space', () => {
    expect(
      normalizeEmbed({
        fields: [
          { name: '', value: '', inline: true },
          { name: 'Status', value: '', inline: false },
          { name: '', value: 'only value', inline: true },
        ],
      }).fields,
    ).toEqual([
      { name: 'Status', value: '\u200b', inline: false },
      { name: '\u200b', value: 'only value', inline: true },
    ]);
  });

  it('is idempotent', () => {
    const once = normalizeEmbed({
      title: '😀'.repeat(200),
      fields: [{ name: 'a', value: '', inline: false }],
    });
    expect(normalizeEmbed(once)).toEqual(once);
  });
});

describe('isEmptyEmbed', () => {
  it('ignores invisible keys', () => {
    expect(isEmptyEmbed({ color: 1, url: 'https://x', timestamp: '2024-01-01T00:00:00Z' })).toBe(
      true,
    );
    expect(isEmptyEmbed({ thumbnail: { url: 'https://x' } })).toBe(false);
  });
});

describe('normalizeDraft', () => {
  it('returns null when nothing would be posted', () => {
    expect(normalizeDraft({ embeds: [] })).toBeNull();
    expect(normalizeDraft({ content: ' ', username: 'bot', embeds: [{ color: 1 }] })).toBeNull();
  });

  it('truncates content, caps embeds and drops empty ones', () => {
    const draft = normalizeDraft({
      content: 'c'.repeat(3000),
      username: '  Deploy bot  ',
      avatar_url: '',
      embeds: [{ color: 5 }, ...Array.from({ length: 12 }, (_, i) => ({ title: `#${i}` }))],
    });
    expect(draft!.content).toHaveLength(EMBED_LIMITS.content);
    expect(draft!.username).toBe('Deploy bot');
    expect(draft!.avatar_url).toBeUndefined();
    expect(draft!.embeds).toHaveLength(MAX_EMBEDS);
    expect(draft!.embeds[0]).toEqual({ title: '#0' });
  });
});

describe('URL fields (security finding 9)', () => {
  const HOSTILE = [
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'file:///etc/passwd',
    'data:text/html,<b>x',
    'vbscript:x',
    'not a url',
    'https://',
  ];

  it.each(HOSTILE)('drops %j from every URL field of a foreign payload', (bad) => {
    const out = normalizeEmbed({
      title: 't',
      url: bad,
      author: { name: 'a', url: bad, icon_url: bad },
      footer: { text: 'f', icon_url: bad },
      image: { url: bad },
      thumbnail: { url: bad },
    });
    expect(out).toEqual({ title: 't', author: { name: 'a' }, footer: { text: 'f' } });
    expect(
      normalizeDraft({ content: 'x', avatar_url: bad, embeds: [] })!.avatar_url,
    ).toBeUndefined();
  });

  it('keeps http(s) everywhere and attachment:// for images and icons only', () => {
    const out = normalizeEmbed({
      title: 't',
      url: 'attachment://page.html',
      author: { name: 'a', url: 'https://a.example/u', icon_url: 'attachment://a.png' },
      image: { url: 'attachment://chart.png' },
      thumbnail: { url: 'http://a.example/t.png' },
    });
    expect(out).toEqual({
      title: 't',
      author: { name: 'a', url: 'https://a.example/u', icon_url: 'attachment://a.png' },
      image: { url: 'attachment://chart.png' },
      thumbnail: { url: 'http://a.example/t.png' },
    });
  });

  it('names each refused field for the routes that answer them', () => {
    expect(
      urlErrors(
        [
          {
            url: 'javascript:alert(1)',
            image: { url: 'file:///etc/passwd' },
            thumbnail: { url: 'x' },
          },
        ],
        'javascript:void(0)',
      ).map((e) => [e.path, e.code]),
    ).toEqual([
      ['embeds.0.url', 'URL_TYPE_INVALID_SCHEME'],
      ['embeds.0.image.url', 'URL_TYPE_INVALID_SCHEME'],
      ['embeds.0.thumbnail.url', 'URL_TYPE_INVALID_URL'],
      ['avatar_url', 'URL_TYPE_INVALID_SCHEME'],
    ]);
    expect(
      urlErrors([{ url: 'https://ok.example', image: { url: 'attachment://a.png' } }]),
    ).toEqual([]);
  });

  it('drops a username override that shows nothing', () => {
    const draft = normalizeDraft({ content: 'x', username: '\u202e\u200b', embeds: [] });
    expect(draft!.username).toBeUndefined();
  });
});
