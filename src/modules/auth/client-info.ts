import { UAParser } from 'ua-parser-js';
import type { ClientInfo } from './session.entity';

/** Browser, OS and platform (desktop/mobile/tablet/…) derived from a User-Agent header. */
export function clientInfoFromUserAgent(userAgent: string | undefined): ClientInfo {
  if (!userAgent) return { browser: null, os: null, platform: null, location: null };
  const ua = new UAParser(userAgent.slice(0, 512)).getResult();
  const platform = ua.device.type ?? (ua.os.name ? 'desktop' : null);
  return {
    browser: ua.browser.name ?? null,
    os: ua.os.name ? [ua.os.name, ua.os.version].filter(Boolean).join(' ') : null,
    platform,
    location: null,
  };
}
