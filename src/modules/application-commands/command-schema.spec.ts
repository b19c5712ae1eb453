import { checkCommand } from './command-schema';

const paths = (body: Record<string, unknown>) =>
  checkCommand(body).errors.map((e) => `${e.path}:${e.code}`);

describe('checkCommand (Discord’s application command rules)', () => {
  it('fills Discord’s defaults and drops unknown keys', () => {
    const { fields, errors } = checkCommand({
      name: 'ping',
      description: 'Pong',
      options: [{ type: 3, name: 'text', description: 'Text', extra: 1 }],
    });
    expect(errors).toEqual([]);
    expect(fields).toEqual({
      type: 1,
      name: 'ping',
      nameLocalizations: null,
      description: 'Pong',
      descriptionLocalizations: null,
      options: [{ type: 3, name: 'text', description: 'Text', required: false }],
      defaultMemberPermissions: null,
      dmPermission: true,
      contexts: null,
      integrationTypes: [0],
      nsfw: false,
    });
  });

  it.each([
    ['ping', true],
    ['with-dash_and_1', true],
    ['héllo', true],
    ['नमस्ते', true],
    ['Ping', false],
    ['two words', false],
    ['', false],
    ['a'.repeat(33), false],
  ])('CHAT_INPUT name %j valid: %s', (name, ok) => {
    expect(paths({ name, description: 'd' }).length === 0).toBe(ok);
  });

  it('USER and MESSAGE names take any case and spaces; no description, no options', () => {
    expect(paths({ type: 2, name: 'High Five' })).toEqual([]);
    expect(paths({ type: 3, name: 'Quote Message', description: '' })).toEqual([]);
    expect(paths({ type: 2, name: ' ' })).toEqual(['name:APPLICATION_COMMAND_INVALID_NAME']);
    expect(paths({ type: 3, name: 'Q', description: 'd', options: [] })).toEqual([
      'description:APPLICATION_COMMAND_INVALID_DESCRIPTION',
    ]);
    expect(
      paths({ type: 2, name: 'Q', options: [{ type: 3, name: 'a', description: 'b' }] }),
    ).toEqual(['options:APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']);
  });

  it('requires a 1-100 character description on CHAT_INPUT commands', () => {
    expect(paths({ name: 'a' })).toEqual(['description:BASE_TYPE_REQUIRED']);
    expect(paths({ name: 'a', description: 'x'.repeat(101) })).toEqual([
      'description:APPLICATION_COMMAND_INVALID_DESCRIPTION',
    ]);
  });

  it('applies the nesting rules: groups hold subcommands, subcommands hold values', () => {
    const sub = (options: unknown[] = []) => ({ type: 1, name: 's', description: 'd', options });
    const value = { type: 3, name: 'v', description: 'd' };
    expect(paths({ name: 'a', description: 'd', options: [sub([value])] })).toEqual([]);
    expect(
      paths({
        name: 'a',
        description: 'd',
        options: [{ type: 2, name: 'g', description: 'd', options: [sub([value])] }],
      }),
    ).toEqual([]);
    expect(
      paths({
        name: 'a',
        description: 'd',
        options: [{ type: 2, name: 'g', description: 'd', options: [value] }],
      }),
    ).toEqual(['options.0.options.0.type:APPLICATION_COMMAND_OPTIONS_TYPE_INVALID']);
    expect(paths({ name: 'a', description: 'd', options: [sub([sub()])] })).toEqual([
      'options.0.options.0.type:APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
    ]);
    expect(paths({ name: 'a', description: 'd', options: [sub(), value] })).toEqual([
      'options:APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
    ]);
    expect(
      paths({ name: 'a', description: 'd', options: [{ type: 2, name: 'g', description: 'd' }] }),
    ).toEqual(['options.0.options:BASE_TYPE_MIN_LENGTH']);
  });

  it('checks choices against the option type, and the fields each type takes', () => {
    const opt = (o: Record<string, unknown>) =>
      paths({ name: 'a', description: 'd', options: [{ name: 'o', description: 'd', ...o }] });
    expect(opt({ type: 4, choices: [{ name: 'one', value: 1 }] })).toEqual([]);
    expect(opt({ type: 4, choices: [{ name: 'half', value: 0.5 }] })).toEqual([
      'options.0.choices.0.value:BASE_TYPE_INTEGER',
    ]);
    expect(opt({ type: 10, choices: [{ name: 'half', value: 0.5 }] })).toEqual([]);
    expect(opt({ type: 3, choices: [{ name: 'n', value: 2 }] })).toEqual([
      'options.0.choices.0.value:BASE_TYPE_STRING',
    ]);
    expect(opt({ type: 5, choices: [{ name: 'n', value: 'x' }] })).toEqual([
      'options.0.choices:APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
    ]);
    expect(opt({ type: 3, min_value: 1 })).toEqual([
      'options.0.min_value:APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
    ]);
    expect(opt({ type: 4, min_value: 5, max_value: 1 })).toEqual([
      'options.0.min_value:NUMBER_TYPE_MAX',
    ]);
    expect(opt({ type: 3, max_length: 6001 })).toEqual(['options.0.max_length:NUMBER_TYPE_MAX']);
    expect(opt({ type: 7, channel_types: [0, 99] })).toEqual([
      'options.0.channel_types.1:BASE_TYPE_CHOICES',
    ]);
    expect(opt({ type: 6, autocomplete: true })).toEqual([
      'options.0.autocomplete:APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
    ]);
  });

  it('puts required options first and keeps names unique', () => {
    const v = (name: string, required?: boolean) => ({ type: 3, name, description: 'd', required });
    expect(paths({ name: 'a', description: 'd', options: [v('a', true), v('b')] })).toEqual([]);
    expect(paths({ name: 'a', description: 'd', options: [v('a'), v('b', true)] })).toEqual([
      'options.1.required:APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
    ]);
    expect(paths({ name: 'a', description: 'd', options: [v('a'), v('a')] })).toEqual([
      'options.1.name:APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
    ]);
  });

  it('takes default_member_permissions as a string or discord.py’s integer', () => {
    const perms = (v: unknown) =>
      checkCommand({ name: 'a', description: 'd', default_member_permissions: v });
    expect(perms('8192').fields.defaultMemberPermissions).toBe('8192');
    expect(perms(8192).fields.defaultMemberPermissions).toBe('8192');
    expect(perms(null).fields.defaultMemberPermissions).toBeNull();
    expect(perms('x').errors.map((e) => e.code)).toEqual(['PERMISSIONS_INVALID']);
  });

  it('keeps an edited command’s fields that the body leaves out', () => {
    const base = checkCommand({ name: 'a', description: 'd', nsfw: true }).fields;
    const { fields, errors } = checkCommand({ description: 'new' }, '', base);
    expect(errors).toEqual([]);
    expect(fields).toMatchObject({ name: 'a', description: 'new', nsfw: true });
  });
});
