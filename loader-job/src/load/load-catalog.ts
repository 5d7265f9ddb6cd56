import { access, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { SERVING_SCHEMA } from '@catalog/contract';
import { CATALOG_FILES, type TableName } from '../catalog-files.js';
import type { IdSet } from './id-set.js';
import { loadFile } from './load-file.js';
import type { FileLoadReport, LoadReport } from './load-report.js';
import { createLoadProgress, type LoadProgress } from './progress.js';
import { RejectsWriter } from './rejects-writer.js';
import { ConstraintBuilder } from './constraint-builder.js';
import {
  createBuildSchema,
  dropLeftoverSchemas,
  installCaptureInService,
  prepareForService,
  swapIntoService,
  takeLoaderLock,
} from './schema-swap.js';
import { backendPid, dropBuildSchema, terminateBackends } from './build-cleanup.js';
import { LoadRefusedError, plausibilityTrips, type GuardOptions, type GuardTrip } from './plausibility-guards.js';
import { recordFingerprint, servedFingerprint } from './source-fingerprint.js';

export interface LoadCatalogOptions extends GuardOptions {
  readonly databaseUrl: string;
  /** Folder holding the six export files. */
  readonly dataDir: string;
  /** Where to write the JSON report (it is also returned, or carried by a LoadRefusedError). */
  readonly reportFile?: string;
  /** Where to write rejected records (NDJSON); defaults to beside the report, else `rejects.ndjson` in dataDir. */
  readonly rejectsFile?: string;
  readonly logger?: Logger;
  /** Show cli-progress bars instead of log lines (the CLI passes whether stdout is a terminal). */
  readonly progressBars?: boolean;
  /** Aborting (the CLI does on SIGTERM/SIGINT) ends the load's statements and drops its build schema. */
  readonly signal?: AbortSignal;
  /**
   * Fingerprint of the catalog source (the chart passes one of its source values): when the
   * served catalog was loaded with the same one, nothing is loaded (outcome "unchanged"); else it
   * is recorded with the new catalog.
   */
  readonly skipIfSourceUnchanged?: string;
}

/** The report's rejects file: beside the report, else in the data folder. */
function defaultRejectsFile({ reportFile, dataDir }: LoadCatalogOptions): string {
  return reportFile ? resolve(reportFile).replace(/(\.json)?$/, '.rejects.ndjson') : join(resolve(dataDir), 'rejects.ndjson');
}

/**
 * Loads the six export files into a fresh schema, builds keys and indexes, checks the result is
 * plausible, and swaps it in as `catalog` in one transaction. Idempotent: the same files always
 * give the same catalog. A load that fails, is refused by a guard or is interrupted leaves the
 * serving catalog as it was and drops its build schema (a SIGKILLed one: the next run does).
 */
export async function loadCatalog(options: LoadCatalogOptions): Promise<LoadReport> {
  const logger = options.logger ?? pino({ name: 'catalog-loader' });
  const rejectsFile = options.rejectsFile ?? defaultRejectsFile(options);
  const startedAt = new Date();
  options.signal?.throwIfAborted();
  await checkInputFiles(options.dataDir);
  const rejects = await RejectsWriter.create(rejectsFile);
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'catalog-loader' });
  // A connection ended on purpose (below) reports an error event; the pending query rejects anyway.
  client.on('error', () => {});
  await client.connect().catch(async (error: unknown) => {
    await rejects.close();
    throw error;
  });
  const progress = createLoadProgress(logger, options.progressBars ?? false);
  let buildSchema: string | undefined;
  let constraints: ConstraintBuilder | undefined;
  const ownBackends = [await backendPid(client)];
  const interrupt = () => void terminateBackends(options.databaseUrl, ownBackends).catch(() => {});
  options.signal?.addEventListener('abort', interrupt, { once: true });
  try {
    await client.query(`SET maintenance_work_mem = '256MB'`);
    await client.query('SET synchronous_commit = off');
    await takeLoaderLock(client);
    const leftoversDropped = await dropLeftoverSchemas(client);
    if (leftoversDropped.length > 0) logger.warn({ schemas: leftoversDropped }, 'dropped schemas left by an interrupted load');
    const fingerprint = options.skipIfSourceUnchanged;
    if (fingerprint !== undefined && (await servedFingerprint(client)) === fingerprint) {
      await installCaptureInService(client);
      await rejects.close();
      const unchanged = loadReport({ outcome: 'unchanged', leftoversDropped, files: [], rejectsFile, startedAt, dataDir: options.dataDir });
      await writeReport(options.reportFile, unchanged);
      logger.info({ fingerprint }, 'catalog source unchanged: keeping the served catalog and the writes made since it was loaded');
      return unchanged;
    }
    options.signal?.throwIfAborted();
    buildSchema = await createBuildSchema(client);
    logger.info({ schema: buildSchema, dataDir: options.dataDir }, 'loading into a fresh schema');

    constraints = await ConstraintBuilder.open(options.databaseUrl, buildSchema);
    ownBackends.push(constraints.backendPid);
    const files = await copyFiles(client, buildSchema, options.dataDir, rejects, progress, constraints);
    const copiedAt = performance.now();
    let indexedAt: number | undefined;
    await rejects.close();
    const report = (outcome: LoadReport['outcome'], refusedBy?: readonly GuardTrip[]) =>
      loadReport({ outcome, refusedBy, leftoversDropped, files, rejectsFile, startedAt, dataDir: options.dataDir, copiedAt, indexedAt });

    refuseEmptyCatalog(files);
    const trips = await plausibilityTrips(client, files, options);
    if (trips.length > 0) {
      const refused = report('refused', trips);
      await writeReport(options.reportFile, refused);
      throw new LoadRefusedError(trips);
    }
    await constraints.finish();
    await prepareForService(client, buildSchema);
    await recordFingerprint(client, buildSchema, fingerprint);
    indexedAt = performance.now();
    options.signal?.throwIfAborted();
    await swapIntoService(client, buildSchema, logger);
    buildSchema = undefined;

    const swapped = report('swapped');
    await writeReport(options.reportFile, swapped);
    logger.info({ seconds: swapped.seconds, totals: swapped.totals, rejectsFile }, 'catalog swapped into service');
    return swapped;
  } catch (error) {
    progress.stop();
    await rejects.close().catch(() => {});
    // Ending our own server processes stops index builds at once and releases every lock the
    // build holds (and the loader lock), so the build schema can be dropped right away.
    await terminateBackends(options.databaseUrl, ownBackends).catch(() => {});
    await constraints?.close().catch(() => {});
    constraints = undefined;
    await client.end().catch(() => {});
    if (buildSchema) await dropBuildSchema(options.databaseUrl, buildSchema, logger);
    throw options.signal?.aborted ? new LoadInterruptedError(options.signal.reason) : error;
  } finally {
    options.signal?.removeEventListener('abort', interrupt);
    await constraints?.close();
    await client.end().catch(() => {});
  }
}

/** The load was stopped from outside (SIGTERM, SIGINT); nothing of it is left in the database. */
export class LoadInterruptedError extends Error {
  constructor(readonly reason: unknown) {
    super(`load interrupted (${String(reason)}): the served catalog is unchanged and the build schema was dropped`);
  }
}

interface ReportFacts {
  outcome: LoadReport['outcome'];
  refusedBy?: readonly GuardTrip[];
  leftoversDropped: LoadReport['leftoversDropped'];
  files: FileLoadReport[];
  rejectsFile: string;
  startedAt: Date;
  dataDir: string;
  /** performance.now() when the files were in, and when keys and indexes were done. */
  copiedAt?: number;
  indexedAt?: number;
}

function loadReport({
  outcome,
  refusedBy,
  leftoversDropped,
  files,
  rejectsFile,
  startedAt,
  dataDir,
  copiedAt,
  indexedAt,
}: ReportFacts): LoadReport {
  const finishedAt = new Date();
  return {
    outcome,
    ...(refusedBy && { refusedBy }),
    leftoversDropped,
    dataDir: resolve(dataDir),
    schema: SERVING_SCHEMA,
    rejectsFile,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    seconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    phases: {
      copySeconds: files.reduce((sum, file) => sum + file.seconds, 0),
      constraintsSeconds: indexedAt === undefined || copiedAt === undefined ? 0 : (indexedAt - copiedAt) / 1000,
      swapSeconds: indexedAt === undefined ? 0 : (performance.now() - indexedAt) / 1000,
    },
    files,
    totals: {
      linesRead: files.reduce((sum, file) => sum + file.lines.read, 0),
      recordsLoaded: files.reduce((sum, file) => sum + file.records.loaded, 0),
      recordsRejected: files.reduce((sum, file) => sum + file.records.rejected, 0),
    },
  };
}

async function writeReport(reportFile: string | undefined, report: LoadReport): Promise<void> {
  if (reportFile) await writeFile(reportFile, `${JSON.stringify(report, null, 2)}\n`);
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
