import type { Socket } from 'node:net';

/**
 * A client's connection and the one a test proxy opened for it to its server, tracked in
 * `sockets` while open (so the proxy can close them all) and closed together when either fails.
 */
export function trackPair(client: Socket, upstream: Socket, sockets: Set<Socket>): void {
  for (const socket of [client, upstream]) {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {
      client.destroy();
      upstream.destroy();
    });
  }
}
