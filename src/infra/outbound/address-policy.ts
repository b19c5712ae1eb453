import * as ipaddr from 'ipaddr.js';

/**
 * What an address is, for outbound requests: `public` (a global unicast address, the only kind
 * reached unless OUTBOUND_ALLOW_PRIVATE=true), or the name of the range that makes it internal
 * or unroutable. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`, and `::127.0.0.1`, which ipaddr.js
 * reads as mapped) are judged by their IPv4 address; the IPv6 forms that embed an IPv4 address
 * otherwise (IPv4-compatible `::7f00:1`, NAT64 `64:ff9b::/96`, 6to4, Teredo) are refused
 * outright, as is anything outside 2000::/3.
 */
export type AddressKind =
  | 'public'
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade NAT'
  | 'link-local'
  | 'unique local'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

const IPV4_KINDS: Record<string, AddressKind> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
};

const IPV6_KINDS: Record<string, AddressKind> = {
  unspecified: 'unspecified',
  linkLocal: 'link-local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'unique local',
  // fec0::/10, deprecated but still routed on some networks as if private.
  deprecatedSiteLocal: 'private',
};

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** `::/96` less `::` and `::1`: the deprecated IPv4-compatible form. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** Classifies an IP address given as text (IPv4, IPv6, with or without brackets or a zone). */
export function classifyAddress(text: string): AddressKind {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return 'invalid';
  // ipaddr.isValid accepts the legacy IPv4 shorthands ("127.1", "0x7f.1"); only the four-part
  // dotted form is an address here (the resolver and the socket layer disagree on the others).
  if (!bare.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return 'invalid';
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return IPV4_KINDS[parsed.range()] ?? 'reserved';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return classifyAddress(v6.toIPv4Address().toString());
  const range = v6.range();
  if (IPV6_KINDS[range]) return IPV6_KINDS[range];
  if (v6.match(IPV4_COMPATIBLE)) return 'reserved';
  if (range !== 'unicast' || !v6.match(GLOBAL_UNICAST)) return 'reserved';
  return 'public';
}

/** Whether an outbound request may connect to this address. */
export function isAddressAllowed(text: string, allowPrivate: boolean): boolean {
  const kind = classifyAddress(text);
  if (kind === 'invalid') return false;
  return allowPrivate || kind === 'public';
}
