import { hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { clientAddressKey, parseAddress, type NetworkSet } from './ip-networks.js';
import type { LimitPolicies, ClientPolicy } from './limit-policies.js';
import type { ClientClass, ClientsConfig } from './limits-config.js';

/** Who a request counts against: a named client (its key listed) or an address, and the class it came as. */
export interface Client {
  /** Names its counters, in Redis too: `name:<configured name>` or `ip:<address, IPv6 by /64>`. Never a key or token. */
  readonly key: string;
  readonly clientClass: ClientClass;
  /** The configured name; undefined for a client known by its address. */
  readonly name: string | undefined;
  /** Its limits; undefined when it is exempt. */
  readonly policy: ClientPolicy | undefined;
}

/** Presented keys remembered with what they identify (unknown ones too), before the map starts over. */
const REMEMBERED_KEYS = 10_000;
/** X-Forwarded-For values remembered with the client they resolve to, likewise. */
const REMEMBERED_FORWARDS = 10_000;

/** A Map that starts over once full: bounded memory for lookups that are cheap to redo. */
class BoundedMemo<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: V): void {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, value);
  }
}

/** A connection's peer: the client it is, unless it is a trusted proxy that forwards others. */
interface Peer {
  client: Client;
  trustedProxy: boolean;
}

const sha256 = (text: string): string => hash('sha256', text, 'hex');

/**
 * Tells which client a request comes from: a key listed in RATE_LIMIT_CLIENTS sent in the API-key
 * header, else one sent as `Authorization: Bearer`, else its address — the last untrusted hop of
 * `X-Forwarded-For` when the connection comes from a trusted proxy, else the socket's peer.
 *
 * A key or token that is not listed identifies nobody: the request counts against its address.
 * Otherwise any client could mint a fresh identity, and a fresh limit, with every request.
 */
export class ClientIdentities {
  /** SHA-256 of each listed key → the client it names, as presented in each way. */
  private readonly clientsByKeyHash = new Map<string, Record<'api-key' | 'bearer', Client>>();
  private readonly presentedKeys = new BoundedMemo<Record<'api-key' | 'bearer', Client> | null>(REMEMBERED_KEYS);
  private readonly forwards = new BoundedMemo<Client>(REMEMBERED_FORWARDS);
  private readonly peers = new WeakMap<Socket, Peer>();

  constructor(
    clients: ClientsConfig['clients'],
    private readonly policies: LimitPolicies,
    private readonly apiKeyHeader: string,
    private readonly trustedProxies: NetworkSet,
  ) {
    for (const [name, { keySha256 }] of Object.entries(clients)) {
      const named = (clientClass: ClientClass): Client => ({
        key: `name:${name}`,
        clientClass,
        name,
        policy: policies.for(clientClass, name),
      });
      this.clientsByKeyHash.set(keySha256, { 'api-key': named('api-key'), bearer: named('bearer') });
    }
  }

  identify(request: IncomingMessage): Client {
    if (this.clientsByKeyHash.size > 0) {
      const apiKey = request.headers[this.apiKeyHeader];
      const byApiKey = typeof apiKey === 'string' ? this.listed(apiKey)?.['api-key'] : undefined;
      if (byApiKey) return byApiKey;
      const authorization = request.headers.authorization;
      const byToken = authorization?.startsWith('Bearer ') ? this.listed(authorization.slice('Bearer '.length))?.bearer : undefined;
      if (byToken) return byToken;
    }
    return this.byAddress(request);
  }

  private listed(presented: string): Record<'api-key' | 'bearer', Client> | undefined {
    let clients = this.presentedKeys.get(presented);
    if (clients === undefined) {
      clients = this.clientsByKeyHash.get(sha256(presented)) ?? null;
      this.presentedKeys.set(presented, clients);
    }
    return clients ?? undefined;
  }

  private byAddress(request: IncomingMessage): Client {
    const peer = this.peerOf(request.socket);
    if (!peer.trustedProxy) return peer.client;
    const forwarded = request.headers['x-forwarded-for'];
    // Node joins repeated X-Forwarded-For lines into one value.
    if (typeof forwarded !== 'string') return peer.client;
    let client = this.forwards.get(forwarded);
    if (!client) {
      client = this.forwardedClient(forwarded) ?? peer.client;
      this.forwards.set(forwarded, client);
    }
    return client;
  }

  /** The socket's peer, worked out once per connection. */
  private peerOf(socket: Socket): Peer {
    let peer = this.peers.get(socket);
    if (!peer) {
      const bytes = socket.remoteAddress === undefined ? undefined : parseAddress(socket.remoteAddress);
      peer = {
        client: this.addressClient(bytes ? clientAddressKey(bytes) : 'unknown'),
        trustedProxy: bytes !== undefined && this.trustedProxies.has(bytes),
      };
      this.peers.set(socket, peer);
    }
    return peer;
  }

  /**
   * The client a trusted proxy forwarded: the rightmost hop of `X-Forwarded-For` that is not itself
   * a trusted proxy (hops to its left were written by the client and prove nothing). When every
   * hop is trusted, the leftmost one; a hop that is not an address ends the walk at the last
   * trusted one before it. Undefined when the first hop read is not an address.
   */
  private forwardedClient(forwarded: string): Client | undefined {
    const hops = forwarded.split(',');
    let lastTrusted: Uint8Array | undefined;
    for (let index = hops.length - 1; index >= 0; index -= 1) {
      const bytes = parseAddress(hopAddress(hops[index]!));
      if (!bytes) break;
      if (!this.trustedProxies.has(bytes)) return this.addressClient(clientAddressKey(bytes));
      lastTrusted = bytes;
    }
    return lastTrusted && this.addressClient(clientAddressKey(lastTrusted));
  }

  private addressClient(address: string): Client {
    return { key: `ip:${address}`, clientClass: 'ip', name: undefined, policy: this.policies.for('ip', undefined) };
  }
}

/** The address of one X-Forwarded-For hop: trimmed, without brackets or a port some proxies add (`[::1]:443`, `10.0.0.1:443`). */
function hopAddress(hop: string): string {
  const text = hop.trim();
  if (text.startsWith('[')) return text.slice(1, text.indexOf(']'));
  const colon = text.indexOf(':');
  return colon > 0 && text.indexOf(':', colon + 1) < 0 ? text.slice(0, colon) : text;
}
