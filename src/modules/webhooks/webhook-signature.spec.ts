import { createHmac } from 'node:crypto';
import { claimedSignature, signatureMatches, verifyDeliverySignature } from './webhook-signature';

const key = Buffer.from("It's a Secret to Everybody", 'utf8');
const body = Buffer.from('Hello, World!', 'utf8');
// GitHub's documented test vector for this secret and payload.
const GITHUB_VECTOR = '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('webhook signatures', () => {
  it("matches GitHub's documented example", () => {
    expect(createHmac('sha256', key).update(body).digest('hex')).toBe(GITHUB_VECTOR);
    expect(signatureMatches(key, body, GITHUB_VECTOR)).toBe(true);
    expect(signatureMatches(key, body, GITHUB_VECTOR.toUpperCase())).toBe(true);
  });

  it('refuses another body, another key, and malformed digests', () => {
    expect(signatureMatches(key, Buffer.from('Hello, World! '), GITHUB_VECTOR)).toBe(false);
    expect(signatureMatches(Buffer.from('other'), body, GITHUB_VECTOR)).toBe(false);
    for (const bad of ['', GITHUB_VECTOR.slice(1), `${GITHUB_VECTOR}00`, 'zz'.repeat(32)]) {
      expect(signatureMatches(key, body, bad)).toBe(false);
    }
  });

  it('reads X-Hub-Signature-256 as sha256=<hex> only', () => {
    const hub = (v: string) => claimedSignature('repohost', { 'x-hub-signature-256': v });
    expect(hub(`sha256=${GITHUB_VECTOR}`)).toBe(GITHUB_VECTOR);
    expect(hub(` SHA256=${GITHUB_VECTOR.toUpperCase()} `)).toBe(GITHUB_VECTOR);
    expect(hub(GITHUB_VECTOR)).toBeUndefined();
    expect(hub(`sha1=${GITHUB_VECTOR}`)).toBeUndefined();
    expect(hub('sha256=')).toBeUndefined();
    expect(claimedSignature('repohost', {})).toBeUndefined();
  });

  it("falls back to Gogs's bare X-Gogs-Signature only when X-Hub-Signature-256 is absent", () => {
    expect(claimedSignature('repohost', { 'x-gogs-signature': GITHUB_VECTOR })).toBe(GITHUB_VECTOR);
    expect(
      claimedSignature('repohost', {
        'x-hub-signature-256': 'sha256=bad',
        'x-gogs-signature': GITHUB_VECTOR,
      }),
    ).toBeUndefined();
  });

  it('reads Sentry-Hook-Signature as bare hex on errortracker only', () => {
    expect(claimedSignature('errortracker', { 'sentry-hook-signature': GITHUB_VECTOR })).toBe(
      GITHUB_VECTOR,
    );
    expect(
      claimedSignature('errortracker', { 'x-hub-signature-256': `sha256=${GITHUB_VECTOR}` }),
    ).toBeUndefined();
    expect(
      claimedSignature('repohost', { 'sentry-hook-signature': GITHUB_VECTOR }),
    ).toBeUndefined();
  });

  it('verifies a whole delivery', () => {
    const headers = { 'x-hub-signature-256': `sha256=${GITHUB_VECTOR}` };
    expect(verifyDeliverySignature('repohost', key, headers, body)).toBe(true);
    expect(verifyDeliverySignature('repohost', key, headers, Buffer.alloc(0))).toBe(false);
    expect(verifyDeliverySignature('repohost', key, {}, body)).toBe(false);
  });
});
