import { prettyFactory } from 'pino-pretty';

/**
 * Where `npm start`'s log lines (its own and the gateway's, JSON) go: on a terminal they are
 * printed for a person (pino-pretty: time, level, message, then the fields); anywhere else they
 * stay the JSON lines the gateway writes, for tools. Text that is not JSON passes unchanged.
 */
export function logPrinter(terminal: boolean, write: (text: string) => void): (line: string) => void {
  if (!terminal) return (line) => write(`${line}\n`);
  const prettify = prettyFactory({ ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' });
  return (line) => write(prettify(line));
}
