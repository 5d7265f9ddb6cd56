import { ServiceUnavailableError } from '../errors.js';

// SQLSTATEs that mean "the database cannot serve right now", not "the query is wrong".
const UNAVAILABLE_SQLSTATES = new Set([
  '53300', // too_many_connections
  '57014', // query_canceled (statement_timeout)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up / shutting down)
  '3D000', // database does not exist (yet)
  '42P01', // undefined_table: the catalog has not been loaded
]);
/** A replica cancelled the statement because replay needed what it read (SQLSTATE 40001 on a standby). */
const RECOVERY_CONFLICT = '40001';
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/**
 * This process's own limits refused the statement (the admission queue, no pool connection free
 * in time): the server may be perfectly healthy, it is this process that has no room for it.
 */
export class DatabaseBusyError extends ServiceUnavailableError {}

/** A hot standby cancelled a read that conflicted with replay: the same read may run elsewhere at once. */
export function isRecoveryConflict(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === RECOVERY_CONFLICT;
}

/**
 * Turns errors caused by Postgres being down, slow or saturated into a 503 the client can retry;
 * anything else (a bug) is returned unchanged so it surfaces as a 500.
 */
export function toAvailabilityError(error: unknown, acquireTimeoutMs: number): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (error.message.includes('timeout exceeded when trying to connect')) {
    return new DatabaseBusyError(`database busy: no connection became free within ${acquireTimeoutMs} ms`, 1, { cause: error });
  }
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code))) {
    const reason = code === '57014' ? 'database statement timed out' : 'database unavailable';
    return new ServiceUnavailableError(reason, code === '57014' ? 1 : 2, { cause: error });
  }
  // node-postgres' own client-side timeout: the server is alive (TCP open) but answers nothing, e.g. stalled.
  if (/Query read timeout/i.test(error.message)) {
    return new ServiceUnavailableError('database did not answer in time', 2, { cause: error });
  }
  if (/Connection terminated|connection ended|Client has encountered a connection error/i.test(error.message)) {
    return new ServiceUnavailableError('database unavailable', 2, { cause: error });
  }
  return error;
}
