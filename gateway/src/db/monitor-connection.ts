import pg from 'pg';

/**
 * One connection of its own to a server, outside its pool and admission queue, for the small
 * statements that watch the server (its WAL position): they must answer while the pool is
 * saturated, and must not wait behind client reads. Made on first use, dropped on any failure
 * and made again by the next statement.
 */
export class MonitorConnection {
  private client: Promise<pg.Client> | undefined;
  private closed = false;

  /**
   * `statementTimeoutMs` bounds each statement (a frozen server fails fast); `connectTimeoutMs`
   * the connect, which takes several round trips where a statement takes one (see read-targets.ts).
   */
  constructor(
    private readonly url: string,
    private readonly timeouts: { connectTimeoutMs: number; statementTimeoutMs: number },
  ) {}

  /** The first row `sql` returns. */
  async row<Row extends pg.QueryResultRow>(sql: string): Promise<Row> {
    if (this.closed) throw new Error('monitor connection closed');
    const client = (this.client ??= this.connect());
    try {
      const { rows } = await (await client).query<Row>(sql);
      return rows[0]!;
    } catch (error) {
      this.drop(client);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.then((connected) => connected.end()).catch(() => {});
  }

  private connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'catalog-gateway-monitor',
      connectionTimeoutMillis: this.timeouts.connectTimeoutMs,
      query_timeout: this.timeouts.statementTimeoutMs,
      keepAlive: true,
    });
    const connected = client.connect().then(() => client);
    // A connection lost while idle: the next statement makes a new one.
    client.on('error', () => this.drop(connected));
    return connected;
  }

  private drop(client: Promise<pg.Client>): void {
    if (this.client === client) this.client = undefined;
    // With a statement still active (timed out) end() destroys the socket at once.
    void client.then((connected) => connected.end()).catch(() => {});
  }
}

/**
 * Runs `step` every `intervalMs`, one at a time (the next starts `intervalMs` after the last
 * ended); returns the function that stops it. `step` must not throw.
 */
export function repeatEvery(intervalMs: number, step: () => Promise<void>): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    await step();
    if (!stopped) timer = setTimeout(run, intervalMs);
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
