import { redactUrl } from './logging';

describe('redactUrl', () => {
  it.each([
    [
      '/v1/webhooks/123/abcDEF123/repohost?wait=true',
      '/v1/webhooks/123/[redacted]/repohost?wait=true',
    ],
    ['/v1/webhooks/123/abcDEF123', '/v1/webhooks/123/[redacted]'],
    ['/v1/auth/handoff/ABCD-EFGH/status', '/v1/auth/handoff/[redacted]/status'],
    [
      '/v1/auth/ip-authorization/poll?ticket=secret&x=1',
      '/v1/auth/ip-authorization/poll?ticket=[redacted]&x=1',
    ],
    ['/cb?state=s&code=c', '/cb?state=[redacted]&code=[redacted]'],
  ])('hides the secret in %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('leaves ordinary URLs alone', () => {
    for (const url of [
      '/v1/webhooks/123',
      '/v1/auth/handoff/initiate',
      '/v1/users/@me',
      '/v1/guilds/1?limit=5',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});
