import { redirectUriErrors, redirectUriProblem } from './redirect-uris';

describe('redirect URIs', () => {
  it.each([
    'https://example.com/cb',
    'https://example.com:8443/cb?x=1',
    'http://localhost:3000/cb',
    'http://127.0.0.1/cb',
    'http://[::1]:9000/cb',
  ])('accepts %p', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    '',
    '/relative/cb',
    'example.com/cb',
    'https://example.com/cb#frag',
    'http://example.com/cb',
    'http://localhost.evil.com/cb',
    'ftp://example.com/cb',
    'javascript:alert(1)',
    `https://example.com/${'a'.repeat(2100)}`,
  ])('refuses %p', (uri) => {
    expect(redirectUriProblem(uri)).not.toBeNull();
  });

  it('reports indexed paths and the list bound', () => {
    expect(redirectUriErrors(['https://ok.example', 'nope'])).toEqual([
      expect.objectContaining({ path: 'redirect_uris.1', code: 'REDIRECT_URI_INVALID' }),
    ]);
    expect(redirectUriErrors(new Array(11).fill('https://a.example'))[0].path).toBe(
      'redirect_uris',
    );
    expect(redirectUriErrors(null)).toEqual([]);
  });
});
