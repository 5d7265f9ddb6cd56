import pg from 'pg';
import type { Logger } from 'pino';

/** Reconnect delays after a listening connection is lost (the last one repeats). */
const RECONNECT_DELAYS_MS = [500, 1_000, 2_000, 5_000];

export interface ListeningConnectionOptions {
  url: string;
  /** The NOTIFY channel listened on. */
  channel: string;
  applicationName: string;
  /** Postgres ends a transaction left idle this long on the connection (none when undefined). */
  idleInTransactionTimeoutMs?: number;
  /** What the connection is for, in its log lines ("catalog swap listener"). */
  purpose: string;
  logger: Logger;
  onNotification: (payload: string) => void;
  /**
   * The connection is up and listening; `reconnected` unless it is the first attempt's (a
   * notification sent while none listened is lost).
   */
  onListening: (client: pg.Client, reconnected: boolean) => void;
  /** A connection attempt failed (counted by the caller). */
  onConnectFailure?: () => void;
}

export interface ListeningConnection {
  /** The connection while it is up and listening. */
  readonly client: pg.Client | undefined;
  close(): Promise<void>;
}

/**
 * A connection of its own, outside the pool, LISTENing on one channel: made again whenever it is
 * lost, after a growing delay.
 */
export function listenOn(options: ListeningConnectionOptions): ListeningConnection {
  const { logger, purpose } = options;
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const scheduleReconnect = () => {
    if (closed || retry) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)]!;
    failures += 1;
    retry = setTimeout(() => {
      retry = undefined;
      void connect(true);
    }, delay);
  };

  const connect = async (reconnecting: boolean) => {
    const candidate = new pg.Client({
      connectionString: options.url,
      application_name: options.applicationName,
      keepAlive: true,
      ...(options.idleInTransactionTimeoutMs !== undefined && { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }),
    });
    candidate.on('notification', ({ channel, payload }) => {
      if (channel === options.channel) options.onNotification(payload ?? '');
    });
    // Errors end the connection; 'end' then schedules the reconnect.
    candidate.on('error', (error) => logger.warn({ err: error }, `${purpose} connection failed`));
    candidate.on('end', () => {
      if (client === candidate) client = undefined;
      scheduleReconnect();
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${options.channel}`);
    } catch (error) {
      options.onConnectFailure?.();
      logger.warn({ err: error }, `${purpose} cannot listen yet; retrying`);
      await candidate.end().catch(() => {});
      scheduleReconnect();
      return;
    }
    if (closed) {
      await candidate.end();
      return;
    }
    client = candidate;
    failures = 0;
    options.onListening(candidate, reconnecting);
  };

  void connect(false);
  return {
    get client() {
      return client;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
