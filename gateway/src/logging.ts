import pino, { type Logger } from 'pino';

const FLUSH_INTERVAL_MS = 1_000;

/**
 * The process logger: JSON lines on stdout, buffered (a write per ~4 KiB rather than per request
 * line, which matters at thousands of requests per second) and flushed every second, so
 * `kubectl logs` still follows along. Call `flush()` before exiting.
 */
export function createProcessLogger(level: string): { logger: Logger; flush: () => void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4_096 });
  const logger = pino({ level }, destination);
  setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  return { logger, flush: () => destination.flushSync() };
}
