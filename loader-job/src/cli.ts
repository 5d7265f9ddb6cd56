import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { generateCatalog } from './generate/generate-catalog.js';
import { loadCatalog } from './load/load-catalog.js';

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return parsed;
}

function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return parsed;
}

const logger = pino({ name: 'catalog-loader' });
const program = new Command('catalog-loader').description('Generate and load the Atelier catalog export').showHelpAfterError();

program
  .command('generate')
  .description('write the six Atelier CSV files for a synthetic catalog')
  .requiredOption('--out <dir>', 'output folder')
  .requiredOption('--products <n>', 'number of products', positiveInteger)
  .option('--seed <s>', 'random seed (same seed, same files)', integer, 1)
  .option('--dirty', 'sprinkle every defect class of the real export', false)
  .action(async (options: { out: string; products: number; seed: number; dirty: boolean }) => {
    const startedAt = performance.now();
    const result = await generateCatalog({ outDir: options.out, products: options.products, seed: options.seed, dirty: options.dirty });
    logger.info({ outDir: options.out, files: result.files, seconds: (performance.now() - startedAt) / 1000 }, 'catalog generated');
  });

program
  .command('load')
  .description('load the six CSV files into Postgres and swap them into service as schema "catalog"')
  .requiredOption('--data <dir>', 'folder with product.csv, features.csv, styles.csv, photos.csv, skus.csv, related.csv')
  .option('--report <file>', 'write the JSON load report here')
  .option('--rejects <file>', 'write rejected records here (NDJSON); default: beside the report, else <data>/rejects.ndjson')
  .option('--database-url <url>', 'Postgres URL (default: $DATABASE_URL)')
  .action(async (options: { data: string; report?: string; rejects?: string; databaseUrl?: string }) => {
    const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
    if (!databaseUrl) return program.error('no database: pass --database-url or set DATABASE_URL');
    const report = await loadCatalog({
      databaseUrl,
      dataDir: options.data,
      reportFile: options.report,
      rejectsFile: options.rejects,
      logger,
      progressBars: process.stdout.isTTY === true,
    });
    if (report.totals.recordsRejected > 0) {
      logger.warn({ rejected: report.totals.recordsRejected, rejectsFile: report.rejectsFile }, 'some records were quarantined');
    }
  });

try {
  await program.parseAsync();
} catch (error) {
  logger.error({ err: error }, (error as Error).message);
  process.exitCode = 1;
}
