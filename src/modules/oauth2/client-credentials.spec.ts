import { OAuthError } from '../../common/errors/oauth-error';
import { parseBasicCredentials, presentedClient, readParams } from './client-credentials';

const basic = (id: string, secret: string, encode = true) => {
  const e = (s: string) => (encode ? encodeURIComponent(s) : s);
  return `Basic ${Buffer.from(`${e(id)}:${e(secret)}`).toString('base64')}`;
};

describe('client credentials', () => {
  it('percent-decodes Basic credentials (RFC 6749 §2.3.1)', () => {
    expect(parseBasicCredentials(basic('123', 'a+b%c:d é~'))).toEqual({
      clientId: '123',
      clientSecret: 'a+b%c:d é~',
    });
  });

  it('reads + as a space', () => {
    const header = `Basic ${Buffer.from('123:a+b').toString('base64')}`;
    expect(parseBasicCredentials(header).clientSecret).toBe('a b');
  });

  it('splits at the first colon only', () => {
    expect(parseBasicCredentials(basic('1', 'x:y', false)).clientSecret).toBe('x:y');
  });

  it.each(['Basic', 'Basic !!!', `Basic ${Buffer.from('nocolon').toString('base64')}`])(
    'refuses malformed %p with invalid_client',
    (header) => {
      expect(() => parseBasicCredentials(header)).toThrow(OAuthError);
      try {
        parseBasicCredentials(header);
      } catch (e) {
        expect((e as OAuthError).error).toBe('invalid_client');
        expect((e as OAuthError).status).toBe(401);
      }
    },
  );

  it('refuses bad percent-encoding', () => {
    expect(() => parseBasicCredentials(`Basic ${Buffer.from('1:%zz').toString('base64')}`)).toThrow(
      OAuthError,
    );
  });

  it('takes body credentials, refuses both methods at once and none at all', () => {
    expect(presentedClient(undefined, { client_id: '1', client_secret: 's' })).toEqual({
      clientId: '1',
      clientSecret: 's',
      method: 'client_secret_post',
    });
    expect(() => presentedClient(basic('1', 's'), { client_secret: 's' })).toThrow(
      expect.objectContaining({ error: 'invalid_request' }) as Error,
    );
    expect(() => presentedClient(undefined, { client_id: '1' })).toThrow(
      expect.objectContaining({ error: 'invalid_client' }) as Error,
    );
    expect(presentedClient(basic('1', 's'), { client_id: '1' }).method).toBe('client_secret_basic');
  });

  it('reads params as single strings', () => {
    expect(readParams({ a: 'x', b: 5, c: '' })).toEqual({ a: 'x', b: '5', c: undefined });
    expect(() => readParams({ a: ['x', 'y'] })).toThrow(OAuthError);
    expect(() => readParams({ a: { b: 1 } })).toThrow(OAuthError);
    expect(readParams(undefined)).toEqual({});
  });
});
