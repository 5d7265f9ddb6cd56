// Builds the GraphQL IDE's browser assets into gateway/dist/ide/ (part of `npm run build`): the
// page script with GraphiQL and React, its stylesheet and fonts, and the three Monaco workers.
// Every file name carries a content hash, so the gateway serves them as immutable; a manifest
// names the page's entry files. Brotli and gzip copies are written once here, not per request.
import { build } from 'esbuild';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const outdir = fileURLToPath(new URL('../dist/ide/', import.meta.url));
const common = {
  bundle: true,
  minify: true,
  outdir,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
} as const;

/** The output file built from each entry point. */
function outputsByEntry(metafile: { outputs: Record<string, { entryPoint?: string }> }, extension: string): Map<string, string> {
  const byEntry = new Map<string, string>();
  for (const [output, { entryPoint }] of Object.entries(metafile.outputs)) {
    if (entryPoint && output.endsWith(extension)) byEntry.set(entryPoint, basename(output));
  }
  return byEntry;
}

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });

// Classic (non-module) workers: every browser Monaco supports can start them.
const workerEntries = {
  editor: 'monaco-editor/esm/vs/editor/editor.worker.js',
  json: 'monaco-editor/esm/vs/language/json/json.worker.js',
  graphql: 'monaco-graphql/esm/graphql.worker.js',
};
const workers = await build({
  ...common,
  format: 'iife',
  entryPoints: Object.entries(workerEntries).map(([name, input]) => ({ in: input, out: `${name}.worker` })),
});
const workerFiles = outputsByEntry(workers.metafile, '.js');
const workerFileOf = (input: string) => [...workerFiles].find(([entry]) => entry.endsWith(input))![1];
const ideWorkers = Object.fromEntries(Object.entries(workerEntries).map(([name, input]) => [name, workerFileOf(input)]));

const page = await build({
  ...common,
  format: 'esm',
  entryPoints: [{ in: fileURLToPath(new URL('main.ts', import.meta.url)), out: 'ide' }],
  define: { ...common.define, IDE_WORKERS: JSON.stringify(ideWorkers) },
  loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file' },
});
const pageOutputs = Object.keys(page.metafile.outputs).map((output) => basename(output));
const manifest = {
  script: pageOutputs.find((file) => file.startsWith('ide-') && file.endsWith('.js'))!,
  stylesheet: pageOutputs.find((file) => file.startsWith('ide-') && file.endsWith('.css'))!,
};
await writeFile(join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
for (const file of await readdir(outdir)) {
  if (!/\.(js|css|ttf|svg)$/.test(file)) continue;
  const bytes = await readFile(join(outdir, file));
  await writeFile(join(outdir, `${file}.br`), await brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }));
  await writeFile(join(outdir, `${file}.gz`), await gzipped(bytes, { level: 9 }));
}
