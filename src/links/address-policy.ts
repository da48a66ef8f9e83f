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
const REFUSED_HOST_NAMES = new Set([
  'localhost', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal',
]);

/** The eight 16-bit groups of an IPv6 address in any spelling (`::` compression, a trailing dotted quad). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail, extra] = text.split('::');
  if (extra !== undefined) return null;
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return null;
  const groups = [...left, ...Array<number>(fill).fill(0), ...right];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

const v4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * An IPv6 address that stands for an IPv4 one, in every transition spelling a router or the kernel may honour:
 * IPv4-compatible (::a.b.c.d, deprecated), IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d),
 * NAT64 (64:ff9b::/96) and 6to4 (2002:aabb:ccdd::/16). The IPv4 address is then judged instead.
 */
function embeddedIPv4(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeros = (...values: number[]) => values.every((v) => v === 0);
  if (zeros(g0, g1, g2, g3, g4) && (g5 === 0 || g5 === 0xffff) && !(g5 === 0 && g6 === 0)) return v4Of(g6, g7);
  if (zeros(g0, g1, g2, g3) && g4 === 0xffff && g5 === 0) return v4Of(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && zeros(g2, g3, g4, g5)) return v4Of(g6, g7);
  if (g0 === 0x2002) return v4Of(g1, g2);
  return null;
}

/** IPv6 ranges refused whatever they carry: local-use NAT64 (RFC 8215) and Teredo tunnels (whose client address is obscured). */
function refusedIPv6Range(groups: number[]): string | null {
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return 'local-use NAT64';
  if (groups[0] === 0x2001 && groups[1] === 0) return 'Teredo tunnel';
  return null;
}

/** Why an IP address may not be fetched from, or null when it is a public address. */
export function refusedAddressReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const groups = ipv6Groups(address);
    if (!groups) return 'not an IP address';
    const inner = embeddedIPv4(groups);
    if (inner) return refusedAddressReason(inner);
    const range = refusedIPv6Range(groups);
    if (range) return range;
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
