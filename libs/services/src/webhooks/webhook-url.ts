import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a webhook may not reach unless `WEBHOOK_ALLOW_PRIVATE_URLS` is true (SSRF: a tenant
 * must not make the service POST into its own network): unspecified, "this network", private
 * (RFC 1918, RFC 4193 unique local), carrier-grade NAT (RFC 6598), loopback, link-local (which
 * holds the cloud metadata service, 169.254.169.254), IETF protocol assignments, benchmarking,
 * multicast, reserved and broadcast (IANA special-purpose registries), and the IPv6 forms that
 * embed an IPv4 address (IPv4-compatible, IPv4-translated, 6to4, Teredo, NAT64). IPv4-mapped
 * IPv6 addresses (`::ffff:10.0.0.1`) match their IPv4 rules (node's BlockList maps them). The
 * documentation ranges (TEST-NET-1..3, 2001:db8::/32) are not refused: nothing routes them.
 */
const REFUSED = (() => {
  const list = new BlockList();
  for (const [net, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(net, prefix, 'ipv4');
  }
  for (const [net, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
    // NAT64 (RFC 6052) reaches IPv4 addresses, private ones included.
    ['64:ff9b::', 96],
  ] as const) {
    list.addSubnet(net, prefix, 'ipv6');
  }
  return list;
})();

/** The 8 groups of an IPv6 literal (a trailing dotted quad counts as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
}

/**
 * IPv6 forms that embed or reach an IPv4 address, loopback and private ones included, and
 * reach no public service of their own: IPv4-compatible (`::a.b.c.d`, RFC 4291 §2.5.5.1,
 * deprecated), IPv4-translated (`::ffff:0:a.b.c.d`, RFC 2765), 6to4 (`2002::/16`, RFC 3056,
 * deprecated by RFC 7526), Teredo (`2001::/32`, RFC 4380) and discard-only (`100::/64`, RFC 6666).
 * Matched by hand: node's BlockList treats IPv4 addresses as IPv4-compatible IPv6 ones, so a
 * `::/96` rule there would refuse every IPv4 address.
 */
function embedsIpv4(address: string): boolean {
  const g = ipv6Groups(address);
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(6)) return true;
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return true;
  if (g[0] === 0x2002) return true;
  if (g[0] === 0x2001 && g[1] === 0) return true;
  return g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0;
}

/** True when `address` (an IPv4 or IPv6 literal) is one a webhook may not reach by default. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && !/^::ffff:[^:]+$/i.test(address) && embedsIpv4(address)) return true;
  return REFUSED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL as an address literal (IPv6 without its brackets), or undefined for a name. */
function literalHost(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : undefined;
}

/** Resolves every address of a host name (DNS, /etc/hosts). */
function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
}

/**
 * Why `raw` cannot be a webhook endpoint, or undefined when it can: an absolute `http:` or
 * `https:` URL without credentials, whose host (a literal, or every address its name resolves
 * to) is not refused by {@link isRefusedAddress}, unless `allowPrivate`. The reason reads after
 * the field name (`url: <reason>`).
 */
export async function webhookUrlProblem(raw: string, allowPrivate: boolean): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (url.username || url.password) return 'must not hold a user name or password (the request is signed instead)';
  if (allowPrivate) return undefined;
  const literal = literalHost(url);
  if (literal) return isRefusedAddress(literal) ? `is on a private, loopback, link-local or unspecified address (${literal}), which webhooks may not reach` : undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(url.hostname);
  } catch {
    return `names a host that does not resolve (${url.hostname})`;
  }
  const refused = addresses.find((a) => isRefusedAddress(a.address));
  return refused ? `resolves to a private, loopback, link-local or unspecified address (${url.hostname} → ${refused.address}), which webhooks may not reach` : undefined;
}

/** Thrown by {@link guardedLookup} for a name that resolves to a refused address. */
export class RefusedAddressError extends Error {
  readonly code = 'EWEBHOOKREFUSED';
}

/**
 * A `lookup` for node:http(s) that refuses names resolving to refused addresses: checked on the
 * addresses the connection then uses, so a name that resolved to a public address at
 * registration and to a private one now (DNS rebinding) is refused too.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    const refused = list.find((a) => isRefusedAddress(a.address));
    if (refused) return callback(new RefusedAddressError(`${hostname} resolves to ${refused.address}, a private, loopback, link-local or unspecified address`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    const first = list[0];
    if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
    callback(null, first.address, first.family);
  });
};

/** Why a URL stored earlier may not be reached now (a literal that is refused), for the delivery's check before connecting. */
export function literalProblem(url: URL, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  const literal = literalHost(url);
  return literal && isRefusedAddress(literal) ? `${literal} is a private, loopback, link-local or unspecified address` : undefined;
}
