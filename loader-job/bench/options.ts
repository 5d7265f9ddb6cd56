import { parseArgs } from 'node:util';

export interface LoaderBenchOptions {
  readonly products: number;
  readonly seed: number;
}

const USAGE = 'usage: npm run bench -- loader [--products N (default 1000000)] [--seed S]';

export function parseLoaderBenchOptions(args: string[]): LoaderBenchOptions {
  const { values } = parseArgs({
    args,
    options: { products: { type: 'string', default: '1000000' }, seed: { type: 'string', default: '1' } },
  });
  const products = Number(values.products);
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(products) || products < 1 || !Number.isSafeInteger(seed)) {
    throw new Error(`bad options ${JSON.stringify(values)}\n${USAGE}`);
  }
  return { products, seed };
}
