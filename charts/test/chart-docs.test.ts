// Every value is documented: a `# --` comment in values.yaml on the key or on an enclosing key,
// and a row for that documented key in the README's values table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isMap, isScalar, parseDocument, type Pair } from 'yaml';
import { CHART_DIR } from './support/chart.js';

interface ValueKey {
  path: string;
  documented: boolean;
  isLeaf: boolean;
}

/** Every key of values.yaml with whether its own preceding comment is a `-- ` description. */
function valueKeys(): ValueKey[] {
  const document = parseDocument(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8'));
  const keys: ValueKey[] = [];
  const walk = (node: unknown, prefix: string) => {
    if (!isMap(node)) return;
    for (const [index, pair] of (node.items as Pair[]).entries()) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const path = prefix ? `${prefix}.${key}` : key;
      // The parser hangs the comment above a map's first key on the map itself.
      const comment = [isScalar(pair.key) ? pair.key.commentBefore : undefined, index === 0 ? node.commentBefore : undefined]
        .filter(Boolean)
        .join('\n');
      const nonEmptyMap = isMap(pair.value) && pair.value.items.length > 0;
      keys.push({ path, documented: /^\s*-- /m.test(comment), isLeaf: !nonEmptyMap });
      walk(pair.value, path);
    }
  };
  walk(document.contents, '');
  return keys;
}

test('every value in values.yaml has a description (on itself or an enclosing key)', () => {
  const keys = valueKeys();
  const documented = new Set(keys.filter((k) => k.documented).map((k) => k.path));
  const undocumented = keys
    .filter((k) => k.isLeaf)
    .filter((k) => !k.path.split('.').some((_, i, parts) => documented.has(parts.slice(0, i + 1).join('.'))))
    .map((k) => k.path);
  assert.deepEqual(undocumented, []);
});

test("every documented value has a row in the chart README's values table", () => {
  const readme = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');
  const missing = valueKeys()
    .filter((k) => k.documented)
    .map((k) => k.path)
    .filter((path) => !readme.includes(`| \`${path}\` |`));
  assert.deepEqual(missing, []);
});
