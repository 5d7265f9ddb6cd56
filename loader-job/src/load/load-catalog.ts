import { access, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { CATALOG_FILES, type TableName } from '../catalog-files.js';
import { SERVING_SCHEMA } from '../schema.js';
import type { IdSet } from './id-set.js';
import { loadFile } from './load-file.js';
import type { FileLoadReport, LoadReport } from './load-report.js';
import { createLoadProgress, type LoadProgress } from './progress.js';
import { RejectsWriter } from './rejects-writer.js';
import { ConstraintBuilder } from './constraint-builder.js';
import { createBuildSchema, dropLeftoverSchemas, prepareForService, swapIntoService, takeLoaderLock } from './schema-swap.js';

export interface LoadCatalogOptions {
  readonly databaseUrl: string;
  /** Folder holding the six export files. */
  readonly dataDir: string;
  /** Where to write the JSON report (it is also returned). */
  readonly reportFile?: string;
  /** Where to write rejected records (NDJSON); defaults to beside the report, else `rejects.ndjson` in dataDir. */
  readonly rejectsFile?: string;
  readonly logger?: Logger;
  /** Show cli-progress bars instead of log lines (the CLI passes whether stdout is a terminal). */
  readonly progressBars?: boolean;
}

/** The report's rejects file: beside the report, else in the data folder. */
function defaultRejectsFile({ reportFile, dataDir }: LoadCatalogOptions): string {
  return reportFile ? resolve(reportFile).replace(/(\.json)?$/, '.rejects.ndjson') : join(resolve(dataDir), 'rejects.ndjson');
}

/**
 * Loads the six export files into a fresh schema, builds keys and indexes, and swaps it in as
 * `catalog` in one transaction. Idempotent: the same files always give the same catalog, and
 * a run killed at any point leaves the serving catalog as it was (the next run cleans up).
 */
export async function loadCatalog(options: LoadCatalogOptions): Promise<LoadReport> {
  const logger = options.logger ?? pino({ name: 'catalog-loader' });
  const rejectsFile = options.rejectsFile ?? defaultRejectsFile(options);
  const startedAt = new Date();
  await checkInputFiles(options.dataDir);
  const rejects = await RejectsWriter.create(rejectsFile);
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'catalog-loader' });
  await client.connect().catch(async (error: unknown) => {
    await rejects.close();
    throw error;
  });
  const progress = createLoadProgress(logger, options.progressBars ?? false);
  let buildSchema: string | undefined;
  let constraints: ConstraintBuilder | undefined;
  try {
    await client.query(`SET maintenance_work_mem = '256MB'`);
    await client.query('SET synchronous_commit = off');
    await takeLoaderLock(client);
    const dropped = await dropLeftoverSchemas(client);
    if (dropped.length > 0) logger.info({ schemas: dropped }, 'dropped schemas left by an interrupted load');
    buildSchema = await createBuildSchema(client);
    logger.info({ schema: buildSchema, dataDir: options.dataDir }, 'loading into a fresh schema');

    constraints = await ConstraintBuilder.open(options.databaseUrl, buildSchema);
    const files = await copyFiles(client, buildSchema, options.dataDir, rejects, progress, constraints);
    const copiedAt = performance.now();
    refuseEmptyCatalog(files);
    await constraints.finish();
    await prepareForService(client, buildSchema);
    const indexedAt = performance.now();
    await swapIntoService(client, buildSchema, logger);
    const finishedAt = new Date();
    await rejects.close();

    const report: LoadReport = {
      dataDir: resolve(options.dataDir),
      schema: SERVING_SCHEMA,
      rejectsFile,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      seconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      phases: {
        copySeconds: files.reduce((sum, file) => sum + file.seconds, 0),
        constraintsSeconds: (indexedAt - copiedAt) / 1000,
        swapSeconds: (performance.now() - indexedAt) / 1000,
      },
      files,
      totals: {
        linesRead: files.reduce((sum, file) => sum + file.lines.read, 0),
        recordsLoaded: files.reduce((sum, file) => sum + file.records.loaded, 0),
        recordsRejected: files.reduce((sum, file) => sum + file.records.rejected, 0),
      },
    };
    if (options.reportFile) await writeFile(options.reportFile, `${JSON.stringify(report, null, 2)}\n`);
    logger.info({ seconds: report.seconds, totals: report.totals, rejectsFile }, 'catalog swapped into service');
    return report;
  } catch (error) {
    progress.stop();
    await rejects.close().catch(() => {});
    await constraints?.close().catch(() => {});
    constraints = undefined;
    if (buildSchema) await dropBuildSchema(client, buildSchema, logger);
    throw error;
  } finally {
    await constraints?.close();
    await client.end();
  }
}

/** Fails before anything else when an input file is missing. */
async function checkInputFiles(dataDir: string): Promise<void> {
  for (const { file } of CATALOG_FILES) {
    await access(join(dataDir, file)).catch(() => {
      throw new Error(`missing input file ${file} in ${resolve(dataDir)}`);
    });
  }
}

async function copyFiles(
  client: pg.Client,
  schema: string,
  dataDir: string,
  rejects: RejectsWriter,
  progress: LoadProgress,
  constraints: ConstraintBuilder,
): Promise<FileLoadReport[]> {
  const loadedIds = new Map<TableName, IdSet>();
  const files: FileLoadReport[] = [];
  for (const spec of CATALOG_FILES) {
    files.push(await loadFile({ client, schema, spec, dataDir, loadedIds, rejects, progress }));
    constraints.tableLoaded(spec.table);
  }
  return files;
}

function refuseEmptyCatalog(files: readonly FileLoadReport[]): void {
  const products = files.find((file) => file.table === 'products');
  if (!products || products.records.loaded === 0) {
    throw new Error('no product loaded: refusing to replace the catalog with an empty one');
  }
}

/** Best effort: a failed load removes its half-built schema (the next run would anyway). */
async function dropBuildSchema(client: pg.Client, schema: string, logger: Logger): Promise<void> {
  try {
    await client.query('ROLLBACK');
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
  } catch (error) {
    logger.warn({ err: error, schema }, 'could not drop the half-built schema; the next load will');
  }
}
