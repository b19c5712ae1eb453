import { ApiError } from '../../../common/errors/api-error';
import { messageComponentsOf, readMessageComponents, readModalComponents } from './components';

const button = (custom_id: string, extra: Record<string, unknown> = {}) => ({
  type: 2,
  style: 1,
  label: custom_id,
  custom_id,
  ...extra,
});
const row = (...components: unknown[]) => ({ type: 1, components });
const select = { type: 3, custom_id: 'pick', options: [{ label: 'A', value: 'a' }] };

/** The paths and codes of what `raw` gets wrong as a message's components. */
const problems = (raw: unknown) =>
  readMessageComponents(raw).errors.map((e) => `${e.path} ${e.code}`);

describe('message components', () => {
  it('keeps the fields sent that Discord defines, drops the rest', () => {
    const { components, errors } = readMessageComponents([
      row(button('ok', { emoji: { name: '👍', id: null }, disabled: false, extra: 1 })),
      row({ ...select, placeholder: 'Pick', min_values: 1, max_values: 1, future: true }),
      row({
        type: 8,
        custom_id: 'ch',
        channel_types: [0],
        default_values: [{ id: '1', type: 'channel' }],
      }),
      row({ type: 2, style: 5, label: 'Docs', url: 'https://example.com/' }),
    ]);
    expect(errors).toEqual([]);
    expect(components).toEqual([
      row({
        type: 2,
        style: 1,
        label: 'ok',
        emoji: { name: '👍' },
        custom_id: 'ok',
        disabled: false,
      }),
      row({ ...select, placeholder: 'Pick', min_values: 1, max_values: 1 }),
      row({
        type: 8,
        custom_id: 'ch',
        channel_types: [0],
        default_values: [{ id: '1', type: 'channel' }],
      }),
      row({ type: 2, style: 5, label: 'Docs', url: 'https://example.com/' }),
    ]);
  });

  it('takes a custom emoji id as discord.py sends it (a number)', () => {
    const { components } = readMessageComponents([
      row(button('e', { emoji: { name: 'x', id: 42 } })),
    ]);
    expect(components[0].components[0]).toMatchObject({ emoji: { id: '42', name: 'x' } });
  });

  it('applies Discord’s limits, each at its path', () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => row(button(`b${i}`)));
    expect(problems(rows(6))).toEqual(['components BASE_TYPE_MAX_LENGTH']);
    expect(problems([row(...[0, 1, 2, 3, 4, 5].map((i) => button(`b${i}`)))])).toEqual([
      'components.0.components BASE_TYPE_MAX_LENGTH',
    ]);
    expect(problems([row(select, button('b'))])).toEqual([
      'components.0.components COMPONENT_LAYOUT_WIDTH_EXCEEDED',
    ]);
    expect(problems([row(button('same')), row(button('x'), button('same'))])).toEqual([
      'components.1.components.1.custom_id COMPONENT_CUSTOM_ID_DUPLICATED',
    ]);
    expect(problems([row(button('x'.repeat(101)))])).toEqual([
      'components.0.components.0.label BASE_TYPE_MAX_LENGTH',
      'components.0.components.0.custom_id BASE_TYPE_MAX_LENGTH',
    ]);
    expect(problems([row({ type: 2, style: 1 })])).toEqual([
      'components.0.components.0.custom_id BASE_TYPE_REQUIRED',
    ]);
    expect(problems([row({ ...select, options: [] })])).toEqual([
      'components.0.components.0.options BASE_TYPE_MIN_LENGTH',
    ]);
    expect(problems([row({ ...select, min_values: 3, max_values: 2 })])).toEqual([
      'components.0.components.0.min_values NUMBER_TYPE_MAX',
      'components.0.components.0.max_values NUMBER_TYPE_MAX',
    ]);
    expect(
      problems([row({ type: 5, custom_id: 'u', default_values: [{ id: '1', type: 'role' }] })]),
    ).toEqual(['components.0.components.0.default_values.0.type BASE_TYPE_CHOICES']);
    expect(problems([{ type: 2 }])).toEqual(['components.0.type BASE_TYPE_CHOICES']);
  });

  it('refuses link buttons to anything but http(s), and ids on them', () => {
    expect(problems([row({ type: 2, style: 5, url: 'javascript:alert(1)' })])).toEqual([
      'components.0.components.0.url URL_TYPE_INVALID_SCHEME',
    ]);
    expect(
      problems([row({ type: 2, style: 5, url: 'https://a.example', custom_id: 'x' })]),
    ).toEqual(['components.0.components.0.custom_id COMPONENT_FIELD_NOT_ALLOWED']);
    expect(problems([row(button('b', { url: 'https://a.example' }))])).toEqual([
      'components.0.components.0.url COMPONENT_FIELD_NOT_ALLOWED',
    ]);
  });

  it('refuses text inputs on messages', () => {
    const input = { type: 4, custom_id: 't', style: 1, label: 'Name' };
    expect(problems([row(input)])).toEqual(['components.0.components.0.type BASE_TYPE_CHOICES']);
  });

  it('refuses a user’s components, accepts a bot’s, and tells omitted from cleared', () => {
    expect(() => messageComponentsOf([row(button('b'))], false)).toThrow(ApiError);
    expect(messageComponentsOf([], false)).toEqual([]);
    expect(messageComponentsOf(undefined, true)).toBeUndefined();
    expect(messageComponentsOf([row(button('b'))], true)).toHaveLength(1);
  });
});

describe('modal components', () => {
  const input = (custom_id: string, extra: Record<string, unknown> = {}) => ({
    type: 4,
    custom_id,
    style: 1,
    label: 'Name',
    ...extra,
  });

  it('takes up to 5 rows of one text input each', () => {
    const ok = readModalComponents([
      row(input('a', { min_length: 1, max_length: 10, required: true })),
    ]);
    expect(ok.errors).toEqual([]);
    expect(ok.components[0].components[0]).toEqual(
      input('a', { min_length: 1, max_length: 10, required: true }),
    );
    const paths = (raw: unknown) =>
      readModalComponents(raw).errors.map((e) => `${e.path} ${e.code}`);
    expect(paths([row(input('a'), input('b'))])).toEqual([
      'components.0.components BASE_TYPE_MAX_LENGTH',
    ]);
    expect(paths([row(input('a', { label: 'x'.repeat(46), style: 3, max_length: 4001 }))])).toEqual(
      [
        'components.0.components.0.style NUMBER_TYPE_MAX',
        'components.0.components.0.label BASE_TYPE_MAX_LENGTH',
        'components.0.components.0.max_length NUMBER_TYPE_MAX',
      ],
    );
    expect(paths([row(button('b'))])).toEqual(['components.0.components.0.type BASE_TYPE_CHOICES']);
  });
});
