import { writeFile } from 'node:fs/promises';
import { productPageBody, type GraphqlDialect } from './queries.js';
import { seededRandom, uniformInt, zipfSampler, type Random } from './random.js';

/** One request of a plan; wrk/replay-plan.lua replays a plan file line by line. */
export interface PlannedRequest {
  method: 'GET' | 'POST';
  path: string;
  /** JSON body for POSTs, '' for GETs. */
  body: string;
}

/** The product ids present in the benchmark catalog. */
export interface IdRange {
  min: number;
  max: number;
}

const LIST_PAGE_SIZE = 5;
/** Share of each legacy REST route in a mix, as front ends call them for a product page. */
const REST_MIX: ReadonlyArray<readonly [route: RestRoute, weight: number]> = [
  ['product', 35],
  ['styles', 35],
  ['related', 20],
  ['list', 10],
];
type RestRoute = 'product' | 'styles' | 'related' | 'list';

function restRequest(route: RestRoute, productId: number, page: number): PlannedRequest {
  const path = {
    product: `/products/${productId}`,
    styles: `/products/${productId}/styles`,
    related: `/products/${productId}/related`,
    list: `/products?page=${page}&count=${LIST_PAGE_SIZE}`,
  }[route];
  return { method: 'GET', path, body: '' };
}

function pickRoute(random: Random): RestRoute {
  const totalWeight = REST_MIX.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * totalWeight;
  for (const [route, weight] of REST_MIX) {
    roll -= weight;
    if (roll < 0) return route;
  }
  return REST_MIX[REST_MIX.length - 1]![0];
}

function restPlan(size: number, random: Random, productId: () => number, page: () => number): PlannedRequest[] {
  return Array.from({ length: size }, () => restRequest(pickRoute(random), productId(), page()));
}

/** REST mix over uniformly random ids and pages of the whole catalog: every response cache misses. */
export function coldRestPlan(ids: IdRange, size: number, seed: number): PlannedRequest[] {
  const random = seededRandom(seed);
  const lastPage = Math.max(1, Math.floor((ids.max - ids.min + 1) / LIST_PAGE_SIZE));
  return restPlan(size, random, () => uniformInt(random, ids.min, ids.max), () => uniformInt(random, 1, lastPage));
}

export interface HotSpot {
  /** How many distinct products are popular at all. */
  population: number;
  /** Zipf exponent: 1 makes the top product ~10% of traffic for a population of 10,000. */
  exponent: number;
}

/** REST mix over Zipf-popular products (spread over the catalog) and Zipf-popular first pages. */
export function hotRestPlan(ids: IdRange, size: number, seed: number, hotSpot: HotSpot): PlannedRequest[] {
  const random = seededRandom(seed);
  const popularIds = Array.from({ length: hotSpot.population }, () => uniformInt(random, ids.min, ids.max));
  const productRank = zipfSampler(random, hotSpot.population, hotSpot.exponent);
  const pageRank = zipfSampler(random, 100, hotSpot.exponent);
  return restPlan(size, random, () => popularIds[productRank() - 1]!, pageRank);
}

/** The product-page GraphQL query for uniformly random products. */
export function coldGraphqlPlan(dialect: GraphqlDialect, ids: IdRange, size: number, seed: number): PlannedRequest[] {
  const random = seededRandom(seed);
  return Array.from({ length: size }, () => ({
    method: 'POST',
    path: '/graphql',
    body: productPageBody(dialect, uniformInt(random, ids.min, ids.max)),
  }));
}

export async function writePlan(file: string, plan: readonly PlannedRequest[]): Promise<void> {
  await writeFile(file, plan.map(({ method, path, body }) => `${method}\t${path}\t${body}\n`).join(''));
}
