import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import { COPY_OPTIONS } from './copy-text.js';
import type { CatalogFileSpec, TableName } from '../catalog-files.js';
import { splitCsvRecord } from './csv-record.js';
import { HeaderError, resolveHeader } from './header.js';
import { IdSet } from './id-set.js';
import { tally, type FileLoadReport } from './load-report.js';
import { PhysicalLineReader } from './physical-lines.js';
import type { LoadProgress } from './progress.js';
import { RecordAssembler } from './record-assembler.js';
import type { RejectsWriter } from './rejects-writer.js';
import { RowConverter } from './row-converter.js';

export interface LoadFileOptions {
  readonly client: pg.ClientBase;
  readonly schema: string;
  readonly spec: CatalogFileSpec;
  readonly dataDir: string;
  /** Ids loaded so far, by table; this file's ids are added under its own table. */
  readonly loadedIds: Map<TableName, IdSet>;
  readonly rejects: RejectsWriter;
  readonly progress: LoadProgress;
}

/**
 * Streams one export file into its (unindexed) table with COPY: physical lines → CSV records →
 * checked, repaired COPY rows, or quarantined records. Every physical line is counted as the
 * header, part of a loaded record or part of a rejected one.
 */
export async function loadFile(options: LoadFileOptions): Promise<FileLoadReport> {
  const { client, schema, spec, dataDir, loadedIds, rejects, progress } = options;
  const startedAt = performance.now();
  const path = join(dataDir, spec.file);
  const { size } = await stat(path);
  progress.fileStarted(spec.file, size);

  const ownIds = new IdSet();
  loadedIds.set(spec.table, ownIds);
  const rejectedByReason: Record<string, number> = {};
  const repairs: Record<string, number> = {};
  const lines = { read: 0, header: 0, loaded: 0, rejected: 0 };
  const records = { read: 0, loaded: 0, rejected: 0 };
  let copyChunk = '';
  let converter: RowConverter | undefined;

  const quarantine = (line: number, endLine: number, raw: string, reason: string, detail: string) => {
    records.rejected++;
    lines.rejected += endLine - line + 1;
    tally(rejectedByReason, reason);
    rejects.add({ file: spec.file, line, ...(endLine !== line && { endLine }), reason, detail, raw });
  };
  const assembler = new RecordAssembler((fields) => converter!.plausible(fields), {
    record(fields, firstLine, lastLine, raw) {
      records.read++;
      const converted = converter!.convert(fields, raw);
      if (typeof converted === 'string') {
        copyChunk += converted;
        records.loaded++;
        lines.loaded += lastLine - firstLine + 1;
      } else {
        quarantine(firstLine, lastLine, raw, converted.reason, converted.detail);
      }
    },
    unparsable(line, raw, reason, detail, endLine = line) {
      records.read++;
      quarantine(line, endLine, raw, reason, detail);
    },
  });

  const reader = new PhysicalLineReader(path);
  let copy: CopyStreamQuery | undefined;
  let copyFailed: Promise<never> | undefined;
  for await (const batch of reader.batches()) {
    for (let text of batch) {
      const number = ++lines.read;
      if (text.endsWith('\r')) {
        text = text.slice(0, -1);
        tally(repairs, 'crlf line end');
      }
      if (converter) {
        if (reader.lastLineUnterminated) assembler.lastLineWithoutEnd(text, number);
        else assembler.line(text, number);
        continue;
      }
      converter = headerConverter(spec, text, ownIds, loadedIds, repairs);
      lines.header = 1;
      copy = client.query(copyFrom(copyStatement(client, schema, spec, converter)));
      copyFailed = failureOf(copy, spec);
    }
    if (copy && copyChunk.length > 0 && !copy.write(copyChunk)) await Promise.race([once(copy, 'drain'), copyFailed]);
    copyChunk = '';
    await rejects.flush();
    progress.advanced(reader.bytesRead, records.loaded);
  }
  if (!copy) throw new HeaderError(`${spec.file} is empty: expected the header ${spec.header.join(',')}`);
  assembler.end();
  copy.end(copyChunk);
  await Promise.race([finished(copy), copyFailed]);
  await rejects.flush();
  if (copy.rowCount !== records.loaded) {
    throw new Error(`${spec.file}: COPY stored ${copy.rowCount} rows but ${records.loaded} were sent`);
  }
  if (reader.hadByteOrderMark) tally(repairs, 'byte order mark');

  const report: FileLoadReport = {
    file: spec.file,
    table: spec.table,
    bytes: size,
    lines,
    records,
    rejectedByReason,
    repairs,
    seconds: (performance.now() - startedAt) / 1000,
  };
  progress.fileFinished(report);
  return report;
}

function headerConverter(
  spec: CatalogFileSpec,
  text: string,
  ownIds: IdSet,
  loadedIds: Map<TableName, IdSet>,
  repairs: Record<string, number>,
): RowConverter {
  const header = splitCsvRecord(text);
  if (header.status !== 'complete') throw new HeaderError(`${spec.file}: the header line is not valid CSV`);
  const positions = resolveHeader(spec, header.fields);
  return new RowConverter(spec, positions, ownIds, loadedIds, (kind, count) => tally(repairs, kind, count), header.fields.length);
}

function copyStatement(client: pg.ClientBase, schema: string, spec: CatalogFileSpec, converter: RowConverter): string {
  const table = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(spec.table)}`;
  const columns = converter.copyColumns.map((column) => client.escapeIdentifier(column)).join(', ');
  return `COPY ${table} (${columns}) FROM STDIN WITH (${COPY_OPTIONS})`;
}

/** Rejects as soon as Postgres refuses the COPY, so no await on the stream hangs. */
function failureOf(copy: CopyStreamQuery, spec: CatalogFileSpec): Promise<never> {
  const failed = once(copy, 'error').then(([error]) => {
    throw new Error(`COPY into ${spec.table} failed: ${(error as Error).message}`);
  });
  failed.catch(() => {});
  return failed;
}
