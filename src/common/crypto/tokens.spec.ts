import { randomBytes } from 'node:crypto';
import {
  constantTimeEqual,
  decryptSecret,
  encryptSecret,
  hmac,
  randomString,
  randomToken,
  sha256,
  sha256Base64Url,
} from './tokens';

describe('crypto helpers', () => {
  it('randomToken carries at least 32 random bytes and never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    expect(() => randomToken(8)).toThrow(RangeError);
  });

  it('randomString uses only the alphabet and the requested length', () => {
    const s = randomString(64);
    expect(s).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(randomString(8, 'AB')).toMatch(/^[AB]{8}$/);
  });

  it('sha256 matches a known vector', () => {
    expect(sha256('abc').toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Base64Url('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('constantTimeEqual compares values of any length', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('secret', 'secreT')).toBe(false);
    expect(constantTimeEqual('secret', 'secret-longer')).toBe(false);
    expect(constantTimeEqual(Buffer.from('a'), 'a')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('hmac is keyed', () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    expect(hmac(k1, 'x')).toBe(hmac(k1, 'x'));
    expect(hmac(k1, 'x')).not.toBe(hmac(k2, 'x'));
  });

  it('encryptSecret round-trips and detects tampering or the wrong key', () => {
    const key = randomBytes(32);
    const sealed = encryptSecret(key, 'webhook-token-é');
    expect(sealed).not.toContain('webhook-token');
    expect(decryptSecret(key, sealed)).toBe('webhook-token-é');
    expect(encryptSecret(key, 'same')).not.toBe(encryptSecret(key, 'same'));
    expect(() => decryptSecret(randomBytes(32), sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => decryptSecret(key, parts.join('.'))).toThrow();
  });
});
