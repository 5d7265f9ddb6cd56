import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Queryable } from '../src/db/database.js';
import { ANCHOR_SPACING } from '../src/paging/product-pager.js';
import { ProductDocumentRepository } from '../src/repository/product-documents.js';
import { ProductRepository } from '../src/repository/products.js';
import { percentile } from './percentile.js';
import { LIST_PAGE_SIZE, PRODUCT_PAGE_MIX, lastListPage, type IdRange, type RestRoute } from './plans.js';
import type { LoadResult } from './wrk.js';

/** Debian's postgresql-15 (a prerequisite) puts pgbench here, outside PATH. */
const PGBENCH_PATHS = ['/usr/lib/postgresql/15/bin/pgbench', '/usr/bin/pgbench'];
/** Clients, as many as the gateway's pool holds connections by default (DB_POOL_MAX). */
export const CEILING_CLIENTS = 20;
const CEILING_THREADS = 2;

/**
 * The SQL texts a repository sends, recorded instead of run: the ceiling runs exactly what the
 * gateway prepares, so a change to a statement moves both sides of the ratio.
 */
function recordStatement(send: (db: Queryable) => Promise<unknown>): string {
  let recorded: string | undefined;
  void send({
    query: async <Row>(text: string) => {
      recorded = text;
      return [] as Row[];
    },
  });
  if (recorded === undefined) throw new Error('the repository sent no statement');
  return recorded;
}

/**
 * One route of the cold REST mix as a pgbench script: its variables drawn as the cold plan draws
 * them (uniform ids, uniform list pages), then the statement the gateway sends for it on a miss,
 * its `$n` parameters spelt as pgbench variables. pgbench variables are numbers, so the id array
 * a batcher sends (`$1::bigint[]`) carries one id, `ARRAY[:id]` (a request's share of a batch;
 * the gateway's batches under load are larger, and cheaper per id).
 */
function routeScript(route: RestRoute, ids: IdRange): string {
  const oneId = (text: string) => [`\\set id random(${ids.min}, ${ids.max})`, text.replace('$1::bigint[]', 'ARRAY[:id]::bigint[]')];
  const lines = {
    product: () => oneId(recordStatement((db) => new ProductDocumentRepository(db).findWithFeatures([ids.min]))),
    styles: () => oneId(recordStatement((db) => new ProductDocumentRepository(db).findStyleTrees([ids.min]))),
    related: () => oneId(recordStatement((db) => new ProductDocumentRepository(db).findRelatedIds([ids.min]))),
    // The legacy list page as ProductPager reads it: from the anchor before its offset (ids are
    // dense here, so the anchor of block b is min - 1 + b·spacing), skipping the rest.
    list: () => [
      `\\set page random(1, ${lastListPage(ids)})`,
      `\\set offset (:page - 1) * ${LIST_PAGE_SIZE}`,
      `\\set after ${ids.min - 1} + (:offset / ${ANCHOR_SPACING}) * ${ANCHOR_SPACING}`,
      `\\set skip :offset % ${ANCHOR_SPACING}`,
      `\\set count ${LIST_PAGE_SIZE}`,
      recordStatement((db) => new ProductRepository(db).listAfter(0, 0, LIST_PAGE_SIZE))
        .replace('$1', ':after')
        .replace('$2', ':skip')
        .replace('$3', ':count'),
    ],
  }[route]();
  // pgbench reads one statement per line.
  return `${lines.map((line) => line.replaceAll(/\s+/g, ' ').trim()).join('\n')}\n`;
}

/** Debian's pgbench; `purpose` names who needs it when it is missing. */
export function findPgbench(purpose: string): string {
  const pgbench = PGBENCH_PATHS.find((path) => existsSync(path));
  if (!pgbench) throw new Error(`${purpose} needs pgbench (Debian's postgresql-15), looked in ${PGBENCH_PATHS.join(', ')}`);
  return pgbench;
}

export interface PostgresCeiling {
  /** Runs the mix for `seconds` on 20 prepared connections, as a load generator's result. */
  run(seconds: number): Promise<LoadResult>;
}

/**
 * What Postgres serves of the cold REST mix's statements with nothing in front of it: pgbench,
 * prepared statements, CEILING_CLIENTS connections, each route's statement in the mix's
 * proportions. The gateway's cold mix over this is how close its misses come to the database.
 */
export async function postgresCeiling(databaseUrl: string, ids: IdRange, workDir: string): Promise<PostgresCeiling> {
  const pgbench = findPgbench('the Postgres ceiling');
  await mkdir(workDir, { recursive: true });
  const scripts = await Promise.all(
    PRODUCT_PAGE_MIX.map(async ([route, weight]) => {
      const file = join(workDir, `${route}.sql`);
      await writeFile(file, routeScript(route, ids));
      return `${file}@${weight}`;
    }),
  );
  const logDir = join(workDir, 'latencies');
  return {
    async run(seconds) {
      await rm(logDir, { recursive: true, force: true });
      await mkdir(logDir);
      const args = ['-n', '-M', 'prepared', '-c', String(CEILING_CLIENTS), '-j', String(CEILING_THREADS), '-T', String(seconds)];
      const { stdout } = await promisify(execFile)(
        pgbench,
        [...args, ...scripts.flatMap((script) => ['-f', script]), '--log', `--log-prefix=${join(logDir, 'tx')}`, databaseUrl],
        { maxBuffer: 1 << 20 },
      );
      return { ...pgbenchSummary(stdout), ...(await latencies(logDir)) };
    },
  };
}

/** Transactions, their rate (without connection time) and failures, from pgbench's summary. */
export function pgbenchSummary(stdout: string): Omit<LoadResult, 'p50Ms' | 'p95Ms' | 'p99Ms'> {
  const number = (pattern: RegExp) => {
    const found = pattern.exec(stdout);
    if (!found) throw new Error(`pgbench printed no ${pattern.source}:\n${stdout}`);
    return Number(found[1]);
  };
  const requests = number(/number of transactions actually processed: (\d+)/);
  const failed = /number of failed transactions: (\d+)/.exec(stdout);
  const errors = failed ? Number(failed[1]) : 0;
  const rps = number(/tps = ([\d.]+) \(without initial connection time\)/);
  return {
    requests,
    seconds: requests / rps,
    rps,
    errors,
    errorDetail: { connectErrors: 0, readErrors: 0, writeErrors: 0, timeouts: 0, statusErrors: errors },
  };
}

/** Percentiles from pgbench's per-transaction logs (a line each: client, transaction, latency µs, …). */
async function latencies(logDir: string): Promise<Pick<LoadResult, 'p50Ms' | 'p95Ms' | 'p99Ms'>> {
  const micros: number[] = [];
  for (const file of await readdir(logDir)) {
    for (const line of (await readFile(join(logDir, file), 'utf8')).split('\n')) {
      if (line) micros.push(Number(line.split(' ')[2]));
    }
  }
  const at = (share: number) => percentile(micros, share) / 1000;
  return { p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) };
}
