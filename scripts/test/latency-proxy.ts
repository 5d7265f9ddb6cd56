// A TCP proxy on loopback that can hold back what a server sends: latency between a client (the
// gateway) and a real server (Postgres), switched on and off while both run, without either
// knowing. Each connection's bytes keep their order; only their arrival is late.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LatencyProxy {
  /** The proxy's port on 127.0.0.1: point the client here instead of at the server. */
  readonly port: number;
  /** Holds each chunk the server sends for `ms` from now on (0: passes it at once). */
  setDelay(ms: number): void;
  /** Chunks that were held back so far: what shows a slowed window slowed anything. */
  readonly delayedChunks: number;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<port> to `target`, holding back the server's replies by the current delay. */
export async function startLatencyProxy(target: { host: string; port: number }): Promise<LatencyProxy> {
  let delayMs = 0;
  let delayedChunks = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    // One chain per connection: a chunk waits for the one before it, so order is kept.
    let chain = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      // Due `delayMs` after it arrived, not after the chunk before it left: latency, not a slower link.
      const dueAt = performance.now() + delayMs;
      if (delayMs > 0) delayedChunks += 1;
      chain = chain.then(async () => {
        const waitMs = dueAt - performance.now();
        if (waitMs > 0) await sleep(waitMs);
        if (!client.destroyed) client.write(chunk);
      });
    });
    upstream.on('end', () => void chain.then(() => client.end()));
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    setDelay: (ms) => {
      delayMs = ms;
    },
    get delayedChunks() {
      return delayedChunks;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
