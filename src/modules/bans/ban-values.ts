import { isEmail } from 'class-validator';
import * as ipaddr from 'ipaddr.js';

/** E.164: `+`, a non-zero country digit, 8 to 15 digits in all. Nothing else is a phone here. */
export const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * The narrowest prefixes a ban may use: a wider range (a /4, a ::/0) would lock out most of the
 * Internet, the operator included, with one typo.
 */
export const MIN_IPV4_PREFIX = 8;
export const MIN_IPV6_PREFIX = 16;

/** How e-mail addresses are compared against bans: trimmed, lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A ban-list e-mail address (normalized), or null when it is not an e-mail address. */
export function parseBanEmail(value: string): string | null {
  const email = normalizeEmail(value);
  return email.length <= 320 && isEmail(email) ? email : null;
}

/** An E.164 phone number (surrounding blanks ignored), or null for anything else. */
export function parsePhone(value: string): string | null {
  const phone = value.trim();
  return E164.test(phone) ? phone : null;
}

/** An IP ban value: the range as PostgreSQL `cidr` text, and the address when it is a single one. */
export interface IpBanValue {
  /** `203.0.113.0/24`, `198.51.100.7/32`, `2001:db8::/64`. */
  cidr: string;
  /** The address of a single-address value (/32, /128), as it is shown: `198.51.100.7`. */
  address: string | null;
}

const DIGITS = /^\d{1,3}$/;

function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (text.includes(':')) {
    // No zone ids (`fe80::1%eth0`): they mean nothing to another host.
    if (text.includes('%') || !ipaddr.IPv6.isValid(text)) return null;
    const v6 = ipaddr.IPv6.parse(text);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  }
  // Dotted quads only: no `127.1`, `0x7f.0.0.1` or leading zeros, which tools read differently.
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null;
}

/**
 * An IPv4/IPv6 address or CIDR range, or null when it is neither, when a range has host bits
 * set (`203.0.113.5/24`: which did the operator mean?), or when it is wider than the minimum
 * prefixes above. An IPv4-mapped IPv6 address is its IPv4 address. A single address is the
 * range /32 or /128.
 */
export function parseIpBan(value: string): IpBanValue | null {
  const text = value.trim();
  const slash = text.indexOf('/');
  const addr = parseAddress(slash < 0 ? text : text.slice(0, slash));
  if (!addr) return null;
  const bits = addr.kind() === 'ipv4' ? 32 : 128;
  let prefix = bits;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!DIGITS.test(p)) return null;
    prefix = Number(p);
    // A mapped address written with an IPv6 prefix (`::ffff:1.2.3.0/120`) is not supported.
    if (text.slice(0, slash).includes(':') && addr.kind() === 'ipv4') return null;
  }
  if (prefix > bits) return null;
  if (prefix < (bits === 32 ? MIN_IPV4_PREFIX : MIN_IPV6_PREFIX)) return null;
  const shown = addr.toString();
  if (prefix === bits) return { cidr: `${shown}/${bits}`, address: shown };
  const network =
    addr.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${shown}/${prefix}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${shown}/${prefix}`);
  if (network.toString() !== shown) return null;
  return { cidr: `${shown}/${prefix}`, address: null };
}

/**
 * The client address as bans see it (`::ffff:1.2.3.4` → `1.2.3.4`), or null when the HTTP server
 * could not tell one (a closed socket).
 */
export function normalizeClientIp(ip: string | undefined): string | null {
  if (!ip) return null;
  try {
    return ipaddr.process(ip).toString();
  } catch {
    return null;
  }
}
