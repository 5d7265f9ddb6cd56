import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { generateCatalog } from './generate/generate-catalog.js';
import { LoadInterruptedError, loadCatalog } from './load/load-catalog.js';
import { DEFAULT_MAX_REJECT_RATIO, LoadRefusedError } from './load/plausibility-guards.js';

/** Exit code of a load a plausibility guard refused (the served catalog is unchanged). */
const EXIT_REFUSED = 3;
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return parsed;
}

function ratio(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !(parsed >= 0 && parsed <= 1)) throw new InvalidArgumentError(`expected a ratio from 0 to 1, got "${value}"`);
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
  .option(
    '--max-reject-ratio <ratio>',
    'refuse the swap when a file rejects more than this share of its records',
    ratio,
    DEFAULT_MAX_REJECT_RATIO,
  )
  .option(
    '--skip-if-source-unchanged <fingerprint>',
    'load nothing when the served catalog was loaded with this source fingerprint (the chart passes one)',
  )
  .option('--allow-shrink', 'swap even when the products shrink >10% (other tables >25%) against the served catalog', false)
  .action(
    async (options: {
      data: string;
      report?: string;
      rejects?: string;
      databaseUrl?: string;
      maxRejectRatio: number;
      allowShrink: boolean;
      skipIfSourceUnchanged?: string;
    }) => {
      const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
      if (!databaseUrl) return program.error('no database: pass --database-url or set DATABASE_URL');
      const interruption = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          logger.warn({ signal }, 'stopping: ending the load and dropping its build schema');
          process.exitCode = SIGNAL_EXIT_CODES[signal];
          interruption.abort(signal);
          // A second signal does not wait for the cleanup.
          process.once(signal, () => process.exit(SIGNAL_EXIT_CODES[signal]));
        });
      }
      const report = await loadCatalog({
        databaseUrl,
        dataDir: options.data,
        reportFile: options.report,
        rejectsFile: options.rejects,
        maxRejectRatio: options.maxRejectRatio,
        allowShrink: options.allowShrink,
        skipIfSourceUnchanged: options.skipIfSourceUnchanged,
        logger,
        progressBars: process.stdout.isTTY === true,
        signal: interruption.signal,
      });
      if (report.totals.recordsRejected > 0) {
        logger.warn({ rejected: report.totals.recordsRejected, rejectsFile: report.rejectsFile }, 'some records were quarantined');
      }
    },
  );

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof LoadRefusedError) {
    logger.error({ refusedBy: error.trips }, error.message);
    process.exitCode = EXIT_REFUSED;
  } else if (error instanceof LoadInterruptedError) {
    logger.error(error.message);
  } else {
    logger.error({ err: error }, (error as Error).message);
    process.exitCode = 1;
  }
}
