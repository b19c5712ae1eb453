import {
  normalizeClientIp,
  normalizeEmail,
  parseBanEmail,
  parseIpBan,
  parsePhone,
} from './ban-values';

describe('ban values', () => {
  it('normalizes e-mail addresses and refuses what is not one', () => {
    expect(normalizeEmail('  Jane.Doe@Example.COM ')).toBe('jane.doe@example.com');
    expect(parseBanEmail(' Jane@Example.com')).toBe('jane@example.com');
    expect(parseBanEmail('not-an-email')).toBeNull();
    expect(parseBanEmail('a@b')).toBeNull();
    expect(parseBanEmail('')).toBeNull();
  });

  it('accepts E.164 phone numbers only', () => {
    expect(parsePhone('+14155550123')).toBe('+14155550123');
    expect(parsePhone(' +447700900123 ')).toBe('+447700900123');
    for (const bad of [
      '14155550123',
      '+0123456789',
      '+1 415 555 0123',
      '+1-415-555-0123',
      '+1234567',
      '+1234567890123456',
      '+44(0)7700900123',
      '',
    ]) {
      expect(parsePhone(bad)).toBeNull();
    }
  });

  it('reads single addresses as /32 and /128', () => {
    expect(parseIpBan('198.51.100.7')).toEqual({
      cidr: '198.51.100.7/32',
      address: '198.51.100.7',
    });
    expect(parseIpBan('198.51.100.7/32')).toEqual({
      cidr: '198.51.100.7/32',
      address: '198.51.100.7',
    });
    expect(parseIpBan('2001:DB8:0:0::1')).toEqual({
      cidr: '2001:db8::1/128',
      address: '2001:db8::1',
    });
    // An IPv4-mapped IPv6 address is the IPv4 client it stands for.
    expect(parseIpBan('::ffff:203.0.113.9')).toEqual({
      cidr: '203.0.113.9/32',
      address: '203.0.113.9',
    });
  });

  it('reads CIDR ranges and refuses host bits, bad prefixes and very wide ranges', () => {
    expect(parseIpBan('203.0.113.0/24')).toEqual({ cidr: '203.0.113.0/24', address: null });
    expect(parseIpBan(' 2001:db8:1:2::/64 ')).toEqual({ cidr: '2001:db8:1:2::/64', address: null });
    for (const bad of [
      '203.0.113.5/24',
      '203.0.113.0/33',
      '203.0.113.0/',
      '203.0.113.0/2a',
      '203.0.113.0/-1',
      '0.0.0.0/0',
      '10.0.0.0/7',
      '::/0',
      '2001:db8::1/64',
      '2001:db8::/129',
      '::ffff:1.2.3.0/120',
    ]) {
      expect({ bad, parsed: parseIpBan(bad) }).toEqual({ bad, parsed: null });
    }
  });

  it('refuses what is not an address', () => {
    for (const bad of [
      '',
      'localhost',
      '256.1.1.1',
      '1.2.3',
      '127.1',
      '0x7f.0.0.1',
      '010.0.0.1',
      'fe80::1%eth0',
      '2001:db8:::1',
      '1.2.3.4/24/1',
    ]) {
      expect({ bad, parsed: parseIpBan(bad) }).toEqual({ bad, parsed: null });
    }
  });

  it('normalizes the client address', () => {
    expect(normalizeClientIp('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeClientIp('2001:0db8::0001')).toBe('2001:db8::1');
    expect(normalizeClientIp(undefined)).toBeNull();
    expect(normalizeClientIp('garbage')).toBeNull();
  });
});
