// A TCP proxy on loopback that can slow what a server sends, and optionally what the client
// sends it: latency, and a bandwidth cap per connection, between a client (the gateway) and a real
// server (Postgres, Redis), switched on and off while both run, without either knowing. Each
// connection's bytes keep their order in each direction; only their arrival is late (a large
// answer later than a small one, as on a congested link). It can also stand for the address a
// primary is reached by, which a failover cuts and moves to the promoted server.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { trackPair } from './socket-pair.js';

export interface LinkSpeed {
  latencyMs: number;
  bytesPerSecond?: number;
  /** Whether what the client sends (its commands, its statements) is late too; else only the server's replies are. */
  requests?: boolean;
  /**
   * Only connections that subscribed (a Redis SUBSCRIBE, PSUBSCRIBE or SSUBSCRIBE sent on them)
   * are slowed: a client hears pub/sub messages late while its commands are answered at once.
   */
  subscribersOnly?: boolean;
}

/** A RESP command whose name (an array's first element) is SUBSCRIBE, PSUBSCRIBE or SSUBSCRIBE: not a value that happens to say so. */
const SUBSCRIBES = /\*\d+\r\n\$1?\d\r\n[PS]?SUBSCRIBE\r\n/i;

export interface LatencyProxy {
  /** The proxy's port on 127.0.0.1: point the client here instead of at the server. */
  readonly port: number;
  /**
   * From now on, each chunk the server sends arrives `latencyMs` late, and a connection carries
   * at most `bytesPerSecond` (unset: no cap). `slow({ latencyMs: 0 })` passes chunks at once.
   */
  slow(link: LinkSpeed): void;
  /** Chunks that were held back so far: what shows a slowed window slowed anything. */
  readonly delayedChunks: number;
  /**
   * Closes every connection and refuses new ones until `moveTo`: as a failover cuts the address a
   * primary is reached by (a `-rw` Service, a writer endpoint), nothing more reaches the old server.
   */
  cut(): void;
  /** From now on, connections go to `port` on the same host (and are accepted again): the address moved. */
  moveTo(port: number): void;
  /** Each time the address refused connections, from `cut` to `moveTo` (performance.now()), the last one open while it lasts. */
  readonly outages: ReadonlyArray<{ from: number; to: number }>;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<port> to `target`, holding back the server's replies by the current delay. */
export async function startLatencyProxy(target: { host: string; port: number }): Promise<LatencyProxy> {
  let link: LinkSpeed = { latencyMs: 0 };
  let delayedChunks = 0;
  let targetPort = target.port;
  let refusing = false;
  const outages: Array<{ from: number; to: number }> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, target.host);
    trackPair(client, upstream, sockets);
    // Told apart by what the client sent: a connection that subscribed carries messages from then on.
    let subscriber = false;
    client.on('data', (chunk: Buffer) => {
      if (!subscriber && SUBSCRIBES.test(chunk.toString('latin1'))) subscriber = true;
    });
    const replies = forward(upstream, client, () => (link.subscribersOnly && !subscriber ? { latencyMs: 0 } : link));
    const requests = forward(client, upstream, () => (link.requests && (!link.subscribersOnly || subscriber) ? link : { latencyMs: 0 }));
    upstream.on('end', () => void replies.drained().then(() => client.end()));
    client.on('end', () => void requests.drained().then(() => upstream.end()));
  });
  /** Carries `from`'s chunks to `to` at the link's speed at the time each arrived. */
  function forward(from: Socket, to: Socket, speed: () => LinkSpeed): { drained(): Promise<void> } {
    // One chain per direction of a connection: a chunk waits for the one before it, so order is kept.
    let chain = Promise.resolve();
    let linkFreeAt = 0;
    from.on('data', (chunk: Buffer) => {
      // Due its latency after it arrived, then as long as the link takes to carry it after the one before.
      const { latencyMs, bytesPerSecond } = speed();
      const sendMs = bytesPerSecond ? (chunk.length * 1_000) / bytesPerSecond : 0;
      if (latencyMs === 0 && sendMs === 0 && performance.now() >= linkFreeAt) {
        // Nothing held back: passed at once, unless an earlier chunk still waits.
        chain = chain.then(() => {
          if (!to.destroyed) to.write(chunk);
        });
        return;
      }
      const dueAt = Math.max(performance.now() + latencyMs, linkFreeAt) + sendMs;
      linkFreeAt = dueAt;
      delayedChunks += 1;
      chain = chain.then(async () => {
        const waitMs = dueAt - performance.now();
        if (waitMs > 0) await sleep(waitMs);
        if (!to.destroyed) to.write(chunk);
      });
    });
    return { drained: () => chain };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    slow: (speed) => {
      link = speed;
    },
    get delayedChunks() {
      return delayedChunks;
    },
    cut() {
      refusing = true;
      outages.push({ from: performance.now(), to: Infinity });
      for (const socket of sockets) socket.destroy();
    },
    moveTo(port: number) {
      targetPort = port;
      refusing = false;
      const open = outages.at(-1);
      if (open?.to === Infinity) open.to = performance.now();
    },
    outages,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
