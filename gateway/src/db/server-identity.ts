import type pg from 'pg';

/**
 * Which server a connection reached, as that server sees it: the address and port it accepted the
 * connection on (empty over a Unix socket, which reaches one server). Behind a load-balanced
 * address (a CloudNativePG `-ro` Service, a PgBouncer pool over several replicas, a managed reader
 * endpoint) two connections to one URL may reach two servers; a server keeps its address when it
 * restarts, so a restarted standby is still the server whose furthest position was seen.
 */
export const SERVER_IDENTITY_SQL = `concat_ws(':', host(inet_server_addr()), inet_server_port())`;

const servers = new WeakMap<pg.PoolClient, Promise<string>>();

/** The server a pooled connection reached, asked once per connection (a connection keeps its server). */
export function serverOf(client: pg.PoolClient): Promise<string> {
  let server = servers.get(client);
  if (!server) {
    server = client.query<{ server: string }>(`SELECT ${SERVER_IDENTITY_SQL} AS server`).then((result) => result.rows[0]!.server);
    servers.set(client, server);
  }
  return server;
}
