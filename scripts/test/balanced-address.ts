// One address on loopback in front of several servers, handing each new connection to the next
// in turn, as a load-balanced Service does (a CloudNativePG `-ro` Service, a PgBouncer pool over
// several replicas, a managed reader endpoint): a client cannot tell which server a connection
// reached. A connection keeps its server for its life.
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { trackPair } from './socket-pair.js';

export interface BalancedAddress {
  /** The address's port on 127.0.0.1. */
  readonly port: number;
  /** How many connections went to each server so far, in the order the ports were given. */
  readonly connections: readonly number[];
  close(): Promise<void>;
}

/** Connection n goes to `ports[n % ports.length]` on 127.0.0.1: the first to the first port. */
export async function startBalancedAddress(ports: readonly number[]): Promise<BalancedAddress> {
  const connections = ports.map(() => 0);
  const sockets = new Set<Socket>();
  let next = 0;
  const server = createServer((client) => {
    const index = next;
    next = (next + 1) % ports.length;
    connections[index]! += 1;
    const upstream = connect(ports[index]!, '127.0.0.1');
    trackPair(client, upstream, sockets);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
