// Layers point one way: a module imports only from its own layer or those below it, and no
// modules import each other in a circle. The order is declared here, once; the imports that still
// point up are listed with their reason (gateway/README.md, "Layout"), and the list must match
// exactly: a new one fails, and so does one that went away without leaving the list.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const SOURCE = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * The layers, lowest first, each a list of folders (ending in /) or files under gateway/src/; a
 * file belongs to the first entry naming it or a folder holding it, most specific first.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts', 'logging.ts', 'events/', 'validation/', 'runtime/'],
  // config.ts checks the limits settings with the parsers of these two.
  ['config.ts', 'limits/limits-config.ts', 'limits/ip-networks.ts', 'telemetry/'],
  ['http/'],
  ['db/', 'redis/'],
  ['repository/', 'paging/'],
  ['coherence/', 'limits/', 'capture/', 'cdn/'],
  ['cache/'],
  ['loaders/', 'writes/'],
  ['metrics/'],
  // The request pipeline: the front door, the per-request record, the cache look-up and the one response writer.
  ['pipeline/'],
  ['services.ts'],
  ['graphql/', 'rest/', 'health/'],
  ['app.ts', 'index.ts', 'cli.ts'],
];

/** Imports that still point up, `from -> to` (files under gateway/src/), each with its reason. */
const UPWARD: Readonly<Record<string, string>> = {
  'db/read-targets.ts -> loaders/shared-batchers.ts':
    'types only: a ReadTarget names the batchers its reads go through (app.ts builds them); a target generic in them touches every reader',
  'db/read-targets.ts -> repository/index.ts':
    'types only: a ReadTarget names the repositories its reads go through (app.ts builds them), as for the batchers',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

function layerOf(file: string): number {
  let best: { layer: number; length: number } | undefined;
  LAYERS.forEach((entries, layer) => {
    for (const entry of entries) {
      const matches = entry.endsWith('/') ? file.startsWith(entry) : file === entry;
      if (matches && (!best || entry.length > best.length)) best = { layer, length: entry.length };
    }
  });
  if (!best) throw new Error(`${file} is in no layer: add it to LAYERS in ${relative(process.cwd(), fileURLToPath(import.meta.url))}`);
  return best.layer;
}

/** Every relative import of every source file, `import type` included: a type is knowledge of the layer too. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of sourceFiles(SOURCE)) {
    const file = relative(SOURCE, path);
    const text = readFileSync(path, 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
    graph.set(
      file,
      specifiers.map((specifier) => relative(SOURCE, resolve(dirname(path), specifier)).replace(/\.js$/, '.ts')),
    );
  }
  return graph;
}

/** The circles of the graph: its strongly connected components of more than one module (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the layers of gateway/src', () => {
  const graph = importGraph();

  it('import only from their own layer or below, but for the listed exceptions', () => {
    const upward = [...graph].flatMap(([from, targets]) =>
      [...new Set(targets)].filter((to) => layerOf(to) > layerOf(from)).map((to) => `${from} -> ${to}`),
    );
    assert.deepEqual(upward.sort(), Object.keys(UPWARD).sort());
  });

  it('import one another in no circle', () => {
    assert.deepEqual(circles(graph), []);
  });
});
