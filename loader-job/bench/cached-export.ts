import { access, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCatalog } from '../src/generate/generate-catalog.js';

/**
 * The clean export both contenders load, generated once per (products, seed) into the temp
 * folder and reused by later runs (generating 1M products takes minutes).
 */
export async function cachedCleanExport(products: number, seed: number, log: (message: string) => void): Promise<string> {
  const dir = join(tmpdir(), `catalog-loader-bench-${products}-${seed}`);
  if (
    await access(dir).then(
      () => true,
      () => false,
    )
  ) {
    log(`reusing the generated export in ${dir}`);
    return dir;
  }
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  const startedAt = performance.now();
  const { files } = await generateCatalog({ outDir: partial, products, seed });
  await rename(partial, dir);
  log(`generated ${JSON.stringify(files)} in ${((performance.now() - startedAt) / 1000).toFixed(1)} s into ${dir}`);
  return dir;
}
