import { parseAuthorization } from './authorization-header';

describe('parseAuthorization', () => {
  it.each([
    ['abc.def-ghi_123', false, { scheme: 'session', credential: 'abc.def-ghi_123' }],
    ['Bearer tok123', false, { scheme: 'bearer', credential: 'tok123' }],
    ['Bot 123456.secret', false, { scheme: 'bot', credential: '123456.secret' }],
    ['Admin adm_1_secret', true, { scheme: 'admin', credential: 'adm_1_secret' }],
  ])('parses %p', (header, admin, expected) => {
    expect(parseAuthorization(header, admin)).toEqual(expected);
  });

  it.each([
    [undefined, false],
    ['', false],
    ['bearer tok', false], // wrong case
    ['BEARER tok', false],
    ['bot 1.x', false],
    ['admin adm_1_x', true],
    ['Bearer  tok', false], // two spaces
    ['Bearer tok ', false], // trailing space
    [' Bearer tok', false], // leading space
    ['Bearer ', false], // empty credential
    ['Bot ', false],
    ['Bearer tok extra', false],
    ['Basic dXNlcjpwYXNz', false], // other schemes
    ['tok with space', false],
    ['Admin adm_1_secret', false], // admin key outside /v1/admin
    ['Bearer\ttok', false],
    ['tok\u00e9', false], // non-ASCII
  ])('treats %p as anonymous', (header, admin) => {
    expect(parseAuthorization(header, admin)).toBeNull();
  });

  it('ignores repeated headers (arrays) and absurdly long values', () => {
    expect(parseAuthorization(['a', 'b'], false)).toBeNull();
    expect(parseAuthorization('x'.repeat(5000), false)).toBeNull();
  });
});
