import type pg from 'pg';

/**
 * Which server a connection reached, as that server sees it: the address and port it accepted the
 * connection on (empty over a Unix socket, which reaches one server). Behind a load-balanced
 * address (a CloudNativePG `-ro` Service, a PgBouncer pool over several replicas, a managed reader
 * endpoint) two connections to one URL may reach two servers; a server keeps its address when it
 * restarts, so a restarted standby is still the server whose furthest position was seen.
 */
export const SERVER_IDENTITY_SQL = `concat_ws(':', host(inet_server_addr()), inet_server_port())`;

const servers = new WeakMap<pg.PoolClient, string>();

/**
 * The server a pooled connection reached: asked on its first statement, then known (a connection
 * keeps its server), so later statements wait for no answer.
 */
export function serverOf(client: pg.PoolClient): string | Promise<string> {
  const known = servers.get(client);
  if (known !== undefined) return known;
  return client.query<{ server: string }>(`SELECT ${SERVER_IDENTITY_SQL} AS server`).then(({ rows }) => {
    servers.set(client, rows[0]!.server);
    return rows[0]!.server;
  });
}
