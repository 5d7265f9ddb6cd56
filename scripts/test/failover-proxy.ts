// A TCP proxy on loopback standing for the address a database's primary is reached by (a
// CloudNativePG `-rw` Service, a managed Postgres's writer endpoint): a failover cuts every
// connection through it, and moves it to the promoted server. Clients (the gateways, SQL writers)
// only ever see the one address, as in production.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface FailoverProxy {
  /** The proxy's port on 127.0.0.1: point clients here instead of at the server. */
  readonly port: number;
  /** Closes every connection and refuses new ones until `moveTo`: nothing more reaches the old server. */
  cut(): void;
  /** From now on, connections go to `port` on 127.0.0.1 (and are accepted again). */
  moveTo(port: number): void;
  close(): Promise<void>;
}

export async function startFailoverProxy(targetPort: number): Promise<FailoverProxy> {
  let target = targetPort;
  let cut = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    moveTo(port: number) {
      target = port;
      cut = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
