import {
  parseSlackColor,
  slackTimestamp,
  slackToMarkdown,
  transformChatCompat,
  unescapeSlack,
} from './chatcompat.transformer';
import { COLORS } from './colors';
import { EMBED_LIMITS } from '../../guilds/embeds/truncate';

describe('slackToMarkdown', () => {
  it.each([
    ['<https://example.com|Example>', '[Example](https://example.com)'],
    ['see <https://example.com>', 'see https://example.com'],
    ['<https://example.com|https://example.com>', 'https://example.com'],
    ['<mailto:a@b.c|mail me>', '[mail me](mailto:a@b.c)'],
    ['a &amp; b &lt;tag&gt;', 'a & b <tag>'],
    ['&amp;lt; stays an entity', '&lt; stays an entity'],
    ['<https://x.io/?a=1&amp;b=2|A &amp; B>', '[A & B](https://x.io/?a=1&b=2)'],
    ['<https://x.io/a_(b)|[v1]>', '[\\[v1\\]](https://x.io/a_%28b%29)'],
    ['hi <@U024BE7LH|bob> in <#C024BE7LR|general>', 'hi @bob in #general'],
    ['<@U024BE7LH>', '@U024BE7LH'],
    ['<!here> and <!channel>', '@here and @channel'],
    ['<!date^1392734382^{date_num}|2014-02-18>', '2014-02-18'],
    [
      'two <https://a.io|A> links <https://b.io|B>',
      'two [A](https://a.io) links [B](https://b.io)',
    ],
    ['no links at all', 'no links at all'],
  ])('converts %p', (input, output) => {
    expect(slackToMarkdown(input)).toBe(output);
  });

  it('unescapes only the three Slack entities', () => {
    expect(unescapeSlack('&amp;&lt;&gt;&quot;&#39;')).toBe('&<>&quot;&#39;');
  });
});

describe('parseSlackColor', () => {
  it.each([
    ['good', 0x2eb886],
    ['warning', 0xdaa038],
    ['danger', 0xa30200],
    ['Danger', 0xa30200],
    ['#36a64f', 0x36a64f],
    ['36A64F', 0x36a64f],
    [' #ff0000 ', 0xff0000],
    [0x123456, 0x123456],
  ])('parses %p', (input, output) => {
    expect(parseSlackColor(input)).toBe(output);
  });

  it.each([
    ['#fff'],
    ['blue'],
    ['#gggggg'],
    ['#1234567'],
    [''],
    [null],
    [-1],
    [0x1000000],
    ['constructor'],
  ])('rejects %p', (input) => {
    expect(parseSlackColor(input)).toBeUndefined();
  });

  it('uses the shared colour table for presets', () => {
    expect(parseSlackColor('good')).toBe(COLORS.good);
    expect(parseSlackColor('warning')).toBe(COLORS.slackWarning);
    expect(parseSlackColor('danger')).toBe(COLORS.danger);
  });
});

describe('slackTimestamp', () => {
  it.each([
    [1503435956, '2017-08-22T21:05:56.000Z'],
    ['1503435956', '2017-08-22T21:05:56.000Z'],
    ['1503435956.000247', '2017-08-22T21:05:56.000Z'],
    [1503435956.5, '2017-08-22T21:05:56.500Z'],
    [0, '1970-01-01T00:00:00.000Z'],
  ])('converts %p', (input, output) => {
    expect(slackTimestamp(input)).toBe(output);
  });

  it.each([['soon'], [''], ['12abc'], [Number.NaN], [Infinity], [1e20], [null], [{}]])(
    'ignores %p',
    (input) => {
      expect(slackTimestamp(input)).toBeUndefined();
    },
  );
});

describe('transformChatCompat', () => {
  it('maps an attachment with every field', () => {
    const draft = transformChatCompat({
      text: 'Deploy finished: <https://ci.example.com/builds/42|build #42> &amp; tests passed',
      username: 'CI Bot',
      icon_url: 'https://ci.example.com/icon.png',
      attachments: [
        {
          fallback: 'Build 42 passed',
          color: '#36a64f',
          pretext: 'Optional pretext above the attachment',
          author_name: 'Bobby Tables',
          author_link: 'https://example.com/bobby',
          author_icon: 'https://example.com/bobby.png',
          title: 'Slack API Documentation',
          title_link: 'https://api.slack.com/',
          text: 'Optional text that appears within the attachment, see <https://x.io|x>',
          fields: [
            { title: 'Priority', value: 'High', short: false },
            { title: 'Env', value: 'prod', short: true },
            { title: 'Count', value: 3 },
          ],
          image_url: 'https://example.com/image.png',
          thumb_url: 'https://example.com/thumb.png',
          footer: 'Slack API',
          footer_icon: 'https://platform.slack-edge.com/img/default_application_icon.png',
          ts: 123456789,
          mrkdwn_in: ['text', 'pretext'],
        },
      ],
    });
    expect(draft).toEqual({
      content: 'Deploy finished: [build #42](https://ci.example.com/builds/42) & tests passed',
      username: 'CI Bot',
      avatar_url: 'https://ci.example.com/icon.png',
      embeds: [
        {
          title: 'Slack API Documentation',
          url: 'https://api.slack.com/',
          description:
            'Optional pretext above the attachment\nOptional text that appears within the attachment, see [x](https://x.io)',
          color: 0x36a64f,
          timestamp: '1973-11-29T21:33:09.000Z',
          author: {
            name: 'Bobby Tables',
            url: 'https://example.com/bobby',
            icon_url: 'https://example.com/bobby.png',
          },
          footer: {
            text: 'Slack API',
            icon_url: 'https://platform.slack-edge.com/img/default_application_icon.png',
          },
          image: { url: 'https://example.com/image.png' },
          thumbnail: { url: 'https://example.com/thumb.png' },
          fields: [
            { name: 'Priority', value: 'High', inline: false },
            { name: 'Env', value: 'prod', inline: true },
            { name: 'Count', value: '3', inline: false },
          ],
        },
      ],
    });
  });

  it('uses the fallback only when pretext and text are both absent', () => {
    const draft = transformChatCompat({
      attachments: [
        { fallback: 'Fallback &amp; more', color: 'danger' },
        { fallback: 'unused', text: 'Text only' },
        { fallback: 'unused', pretext: 'Pretext only', color: 'good' },
      ],
    });
    expect(draft!.embeds).toEqual([
      { description: 'Fallback & more', color: COLORS.danger },
      { description: 'Text only' },
      { description: 'Pretext only', color: COLORS.good },
    ]);
  });

  it('reads ts as a number or a numeric string', () => {
    const draft = transformChatCompat({
      attachments: [
        { title: 'n', ts: 1503435956 },
        { title: 's', ts: '1503435956.000247' },
        { title: 'bad', ts: 'yesterday' },
      ],
    });
    expect(draft!.embeds.map((e) => e.timestamp)).toEqual([
      '2017-08-22T21:05:56.000Z',
      '2017-08-22T21:05:56.000Z',
      undefined,
    ]);
  });

  it('accepts and ignores channel, icon_emoji, mrkdwn, mrkdwn_in and blocks', () => {
    const base = { text: 'hello', username: 'bot' };
    const withExtras = {
      ...base,
      channel: '#general',
      icon_emoji: ':ghost:',
      mrkdwn: false,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*bold*' } }],
      attachments: [{ text: 'x', mrkdwn_in: ['text'] }],
    };
    expect(transformChatCompat(withExtras)).toEqual({
      content: 'hello',
      username: 'bot',
      embeds: [{ description: 'x' }],
    });
    expect(transformChatCompat(base)).toEqual({ content: 'hello', username: 'bot', embeds: [] });
  });

  it('returns null when nothing would be posted', () => {
    expect(transformChatCompat({})).toBeNull();
    expect(transformChatCompat({ text: '' })).toBeNull();
    expect(transformChatCompat({ text: '   ', attachments: [] })).toBeNull();
    expect(transformChatCompat({ username: 'bot', icon_url: 'https://x/i.png' })).toBeNull();
    expect(transformChatCompat({ blocks: [{ type: 'divider' }], channel: '#x' })).toBeNull();
    expect(transformChatCompat({ attachments: [{ color: 'good' }, {}, null, 'x'] })).toBeNull();
  });

  it('keeps at most ten embeds, not counting empty attachments', () => {
    const attachments = [
      {},
      { color: 'good' },
      ...Array.from({ length: 12 }, (_, i) => ({ title: `#${i}` })),
    ];
    const draft = transformChatCompat({ attachments });
    expect(draft!.embeds).toHaveLength(10);
    expect(draft!.embeds[0].title).toBe('#0');
    expect(draft!.embeds[9].title).toBe('#9');
  });

  it('applies the limits to content and attachment text', () => {
    const draft = transformChatCompat({
      text: '😀'.repeat(1500),
      attachments: [
        {
          title: 'x'.repeat(300),
          text: 'y'.repeat(5000),
          fields: [{ title: 'f', value: 'v'.repeat(2000) }],
        },
      ],
    });
    expect(draft!.content!.length).toBeLessThanOrEqual(EMBED_LIMITS.content);
    expect(draft!.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(draft!.embeds[0].title).toHaveLength(EMBED_LIMITS.title);
    expect(draft!.embeds[0].description).toHaveLength(EMBED_LIMITS.description);
    expect(draft!.embeds[0].fields![0].value).toHaveLength(EMBED_LIMITS.fieldValue);
  });

  it('drops an author without a name and a footer without text', () => {
    const draft = transformChatCompat({
      attachments: [
        {
          title: 't',
          author_icon: 'https://i',
          author_link: 'https://l',
          footer_icon: 'https://f',
        },
      ],
    });
    expect(draft!.embeds).toEqual([{ title: 't' }]);
  });

  it('never throws on garbage', () => {
    const inputs: unknown[] = [
      null,
      undefined,
      42,
      'x',
      [],
      { text: 42 },
      { text: {}, attachments: 'x' },
      { attachments: [{ fields: 'x', ts: {}, color: [] }] },
      { attachments: [{ fields: [null, 1, { title: {}, value: [] }] }] },
      { text: '<<<>>>|||&amp;' },
      { username: 12345, icon_url: 7 },
    ];
    for (const input of inputs) {
      const draft = transformChatCompat(input);
      if (draft !== null) expect(Array.isArray(draft.embeds)).toBe(true);
    }
    expect(transformChatCompat(null)).toBeNull();
    expect(transformChatCompat('x')).toBeNull();
    expect(transformChatCompat({ text: 42 })).toEqual({ content: '42', embeds: [] });
    expect(transformChatCompat({ text: '<<<>>>|||&amp;' })).toEqual({
      content: '<<>>|||&',
      embeds: [],
    });
    const hostile = {
      get attachments(): never {
        throw new Error('boom');
      },
    };
    expect(transformChatCompat(hostile)).toBeNull();
  });
});

describe('links in rendered text (security finding 9)', () => {
  it.each([
    ['<javascript:alert(1)|click>', 'click'],
    ['<file:///etc/passwd|passwords>', 'passwords'],
    ['<https://ok.example/a|fine>', '[fine](https://ok.example/a)'],
  ])('renders %j as %j', (input, expected) => {
    expect(slackToMarkdown(input)).toBe(expected);
  });
});
