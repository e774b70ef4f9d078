import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Where webhooks may go, from the configuration. */
export interface WebhookTargets {
  allowHttp: boolean;
  allowPrivate: boolean;
}

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const v = isIP(address);
  if (v === 0) return false;
  const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, v === 4 ? 'ipv4' : 'ipv6');
}

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
  const host = url.hostname.replace(/^\[|\]$/g, '');
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
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return undefined;
  const addresses = await lookup(host, { all: true });
  return addresses.some((a) => isPrivateAddress(a.address))
    ? `${host} resolves to a private address`
    : undefined;
}
