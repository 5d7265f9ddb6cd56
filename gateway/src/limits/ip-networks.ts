import { isIP } from 'node:net';

/**
 * An IP address as its 16 bytes: IPv6 as is, IPv4 in its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`),
 * so one comparison serves both families and a peer reported as `::ffff:10.0.0.1` matches
 * `10.0.0.0/8`. Undefined when the text is not an address. (Node's BlockList does this too, but
 * costs ~5 µs a check: more than the front door spends on a whole cached answer.)
 */
export function parseAddress(text: string): Uint8Array | undefined {
  const unzoned = text.includes('%') ? text.slice(0, text.indexOf('%')) : text;
  const family = isIP(unzoned);
  if (family === 4) return ipv4Bytes(unzoned, new Uint8Array(16), 12);
  if (family === 6) return ipv6Bytes(unzoned);
  return undefined;
}

function ipv4Bytes(text: string, bytes: Uint8Array, offset: number): Uint8Array {
  if (offset === 12) bytes[10] = bytes[11] = 0xff;
  const octets = text.split('.');
  for (let index = 0; index < 4; index += 1) bytes[offset + index] = Number(octets[index]);
  return bytes;
}

/** A valid IPv6 address (isIP said so): `::` expanded, a trailing dotted IPv4 part included. */
function ipv6Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(16);
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const write = (parts: string[], fromByte: number) => {
    let at = fromByte;
    for (const part of parts) {
      if (part.includes('.')) {
        ipv4Bytes(part, bytes, at);
        at += 4;
      } else {
        const value = parseInt(part, 16);
        bytes[at] = value >> 8;
        bytes[at + 1] = value & 0xff;
        at += 2;
      }
    }
  };
  const headParts = groups(head);
  write(headParts, 0);
  if (tail !== undefined) {
    const tailParts = groups(tail);
    const tailBytes = tailParts.reduce((sum, part) => sum + (part.includes('.') ? 4 : 2), 0);
    write(tailParts, 16 - tailBytes);
  }
  return bytes;
}

const isIpv4Mapped = (bytes: Uint8Array): boolean =>
  bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;

/**
 * The part of an address that names one client: an IPv4 address whole, an IPv6 address by its
 * /64, the smallest block a host is given (a single home or server can draw addresses from all
 * of it, so counting per address would let it step around its limit).
 */
export function clientAddressKey(bytes: Uint8Array): string {
  if (isIpv4Mapped(bytes)) return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
  const hextets: string[] = [];
  for (let index = 0; index < 8; index += 2) hextets.push(((bytes[index]! << 8) | bytes[index + 1]!).toString(16));
  return `${hextets.join(':')}::/64`;
}

/** An address block: its first bytes and how many leading bits of the 128 it fixes. */
export interface Network {
  bytes: Uint8Array;
  prefixBits: number;
}

/**
 * `10.0.0.0/8`, `2001:db8::/32`, or a single address (`10.1.2.3`, `::1`), as an operator writes
 * it; the problem as text when it is not one.
 */
export function parseNetwork(text: string): Network | string {
  const [address, prefix, extra] = text.split('/');
  const bytes = parseAddress(address ?? '');
  if (!bytes || extra !== undefined) return `"${text}" is not an IP address or CIDR block (10.0.0.0/8, 2001:db8::/32)`;
  const familyBits = isIP(address!) === 4 ? 32 : 128;
  if (prefix === undefined) return { bytes, prefixBits: 128 };
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!(bits >= 0 && bits <= familyBits)) return `"${text}": the prefix length must be 0..${familyBits}`;
  return { bytes, prefixBits: bits + (128 - familyBits) };
}

/** Whether `bytes` lies in `network`. */
function contains(network: Network, bytes: Uint8Array): boolean {
  const whole = network.prefixBits >> 3;
  for (let index = 0; index < whole; index += 1) if (network.bytes[index] !== bytes[index]) return false;
  const rest = network.prefixBits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (network.bytes[whole]! & mask) === (bytes[whole]! & mask);
}

/** A set of address blocks (the trusted proxies). */
export class NetworkSet {
  constructor(private readonly networks: readonly Network[]) {}

  get empty(): boolean {
    return this.networks.length === 0;
  }

  has(bytes: Uint8Array): boolean {
    return this.networks.some((network) => contains(network, bytes));
  }
}
