import { clientInfoFromUserAgent } from './client-info';

describe('clientInfoFromUserAgent', () => {
  it('reads a desktop browser', () => {
    const info = clientInfoFromUserAgent(
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    );
    expect(info).toEqual({
      browser: 'Chrome',
      os: 'Windows 10',
      platform: 'desktop',
      location: null,
    });
  });

  it('reads a phone', () => {
    const info = clientInfoFromUserAgent(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
    );
    expect(info.platform).toBe('mobile');
    expect(info.os).toMatch(/^iOS/);
    expect(info.browser).toMatch(/Safari/);
  });

  it('copes with missing or odd agents', () => {
    expect(clientInfoFromUserAgent(undefined)).toEqual({
      browser: null,
      os: null,
      platform: null,
      location: null,
    });
    expect(clientInfoFromUserAgent('curl/8.0').browser).toBeNull();
  });
});
