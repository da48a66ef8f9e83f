import net from 'node:net';

/**
 * Which network addresses a server-side fetch of a user's link may reach. A link is user input: without this
 * policy anyone could make the server read its own admin ports, the private network or the cloud metadata
 * service (169.254.169.254, fd00:ec2::254) and hand the answer back as "audio". The check runs on the address
 * the socket actually connects to (see safe-fetch.ts), so a DNS answer that changes between check and connect
 * (rebinding) cannot slip through.
 */
const refused = new net.BlockList();
const V4_RANGES: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V6_RANGES: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique-local (private; includes fd00:ec2::254 cloud metadata)'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
  ['100::', 64, 'discard'],
];
const reasons: Array<{ list: net.BlockList; reason: string }> = [];
for (const [address, prefix, reason] of V4_RANGES) {
  refused.addSubnet(address, prefix, 'ipv4');
  const one = new net.BlockList();
  one.addSubnet(address, prefix, 'ipv4');
  reasons.push({ list: one, reason });
}
for (const [address, prefix, reason] of V6_RANGES) {
  refused.addSubnet(address, prefix, 'ipv6');
  const one = new net.BlockList();
  one.addSubnet(address, prefix, 'ipv6');
  reasons.push({ list: one, reason });
}

/** Host names that are internal whatever they resolve to (some resolve only inside a cloud). */
const REFUSED_HOST_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** The IPv4 address carried inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIPv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
}

/** Why an IP address may not be fetched from, or null when it is a public address. */
export function refusedAddressReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner) return refusedAddressReason(inner);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!refused.check(address, type)) return null;
  return reasons.find((r) => r.list.check(address, type))?.reason ?? 'not public';
}

/** Why a host name may not be fetched from by name alone (before any DNS lookup), or null. */
export function refusedHostNameReason(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (REFUSED_HOST_NAMES.has(name) || name.endsWith('.localhost')) return 'internal host name';
  if (name.endsWith('.internal') || name.endsWith('.local')) return 'internal host name';
  return null;
}
