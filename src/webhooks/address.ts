import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where webhooks may go, from the configuration. */
export interface WebhookTargets {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/**
 * Whether an address is anything but an ordinary public unicast address: every block of
 * IANA's IPv4 and IPv6 special-purpose registries (private, loopback, link-local,
 * carrier-grade NAT, documentation, benchmarking, multicast, reserved, ...), as the
 * maintained ipaddr.js knows them, and the IPv6 forms that carry an IPv4 address inside
 * (IPv4-mapped, the deprecated IPv4-compatible `::a.b.c.d`, NAT64, 6to4, Teredo), which
 * would otherwise reach an IPv4 host through the back door.
 */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::/96 holds the unspecified and loopback addresses and the IPv4-compatible form
    if (v6.parts.slice(0, 6).every((p) => p === 0)) return true;
    if (v6.isIPv4MappedAddress()) return true;
  }
  return parsed.range() !== 'unicast';
}

/** A URL's host as checked: without IPv6 brackets, lower case, without the root's trailing dots. */
const hostOf = (url: URL) =>
  url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');

/** Why a URL cannot receive webhooks, or undefined when it can (without resolving it). */
export function urlProblem(raw: string, targets: WebhookTargets): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && !(targets.allowHttp && url.protocol === 'http:'))
    return targets.allowHttp ? 'only http and https URLs' : 'only https URLs';
  if (url.username || url.password) return 'no credentials in the URL';
  const host = hostOf(url);
  if (!targets.allowPrivate && (host === 'localhost' || host.endsWith('.localhost')))
    return 'a loopback address';
  if (!targets.allowPrivate && isPrivateAddress(host)) return 'a private or loopback address';
  return undefined;
}

/**
 * Resolves the URL's host at delivery time: a name that resolves to a private address is
 * refused too (unless allowed), so a DNS change cannot point webhooks inside.
 */
export async function resolvedProblem(
  raw: string,
  targets: WebhookTargets,
): Promise<string | undefined> {
  const problem = urlProblem(raw, targets);
  if (problem || targets.allowPrivate) return problem;
  const host = hostOf(new URL(raw));
  if (isIP(host)) return undefined;
  const addresses = await lookup(host, { all: true });
  return addresses.some((a) => isPrivateAddress(a.address))
    ? `${host} resolves to a private address`
    : undefined;
}
