import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isAddressAllowed, type AddressKind } from './address-policy';

/** A host whose address is one outbound requests may not reach (OUTBOUND_ALLOW_PRIVATE). */
export class AddressRefusedError extends Error {
  readonly code = 'EADDRREFUSED';
  constructor(readonly kind: AddressKind) {
    super(`refused to connect to a ${kind} address`);
  }
}

/** Every address of a host (node:dns `lookup` with `all: true`; tests pass their own). */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for http(s) agents: resolves every address of the host and refuses the connection
 * when any of them is not allowed — so the check applies to the address the socket then
 * connects to, on every new connection (a later DNS answer cannot slip a loopback address in).
 * Answers in the shape asked for (`all` when Node races IPv4 and IPv6).
 */
export function guardedLookup(
  allowPrivate: boolean,
  resolveAll: ResolveAll = dnsLookup,
): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.find((a) => !isAddressAllowed(a.address, allowPrivate));
      if (refused || addresses.length === 0) {
        const kind = refused ? classifyAddress(refused.address) : 'invalid';
        return callback(new AddressRefusedError(kind), '', 0);
      }
      if (options.all) {
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    });
  };
}
