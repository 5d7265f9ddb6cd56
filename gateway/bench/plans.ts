import { writeFile } from 'node:fs/promises';
import { productPageBody, type GraphqlDialect } from './queries.js';
import { scatterRanks, zipfSampler } from '../../k6/lib/zipf.js';
import { seededRandom, uniformInt, type Random } from './random.js';

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

/** How many products the catalog holds: a cold plan longer than that repeats ids. */
export const catalogSize = (ids: IdRange): number => ids.max - ids.min + 1;

export const LIST_PAGE_SIZE = 5;
export type RestRoute = 'product' | 'styles' | 'related' | 'list';
/** Share of each legacy REST route in a mix. */
export type RouteMix = ReadonlyArray<readonly [route: RestRoute, weight: number]>;
/** The cold and hot mixes, as front ends call the routes for a product page. */
export const PRODUCT_PAGE_MIX: RouteMix = [
  ['product', 35],
  ['styles', 35],
  ['related', 20],
  ['list', 10],
];
/** The long-tail mix of issue 13: styles, the biggest responses, weigh most. */
const LONG_TAIL_MIX: RouteMix = [
  ['product', 30],
  ['styles', 40],
  ['related', 20],
  ['list', 10],
];

function restRequest(route: RestRoute, productId: number, page: number): PlannedRequest {
  const path = {
    product: `/products/${productId}`,
    styles: `/products/${productId}/styles`,
    related: `/products/${productId}/related`,
    list: `/products?page=${page}&count=${LIST_PAGE_SIZE}`,
  }[route];
  return { method: 'GET', path, body: '' };
}

function pickRoute(random: Random, mix: RouteMix): RestRoute {
  const totalWeight = mix.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * totalWeight;
  for (const [route, weight] of mix) {
    roll -= weight;
    if (roll < 0) return route;
  }
  return mix[mix.length - 1]![0];
}

function restPlan(size: number, random: Random, productId: () => number, page: () => number, mix = PRODUCT_PAGE_MIX): PlannedRequest[] {
  return Array.from({ length: size }, () => restRequest(pickRoute(random, mix), productId(), page()));
}

export const lastListPage = (ids: IdRange) => Math.max(1, Math.floor(catalogSize(ids) / LIST_PAGE_SIZE));

/**
 * Product ids in a seeded random order, none repeated before every id of the catalog has come (a
 * Fisher–Yates shuffle of its range, dealt again once used up): the ids of a cold plan, where a
 * repeated id would be a cache hit. Drawn with replacement instead, a plan half the catalog's
 * size repeats a fifth of its ids, and a target that served more in its earlier rounds finds more
 * of its later ones cached.
 */
function shuffledIds(ids: IdRange, random: Random): () => number {
  const order = Int32Array.from({ length: catalogSize(ids) }, (_, index) => ids.min + index);
  let dealt = order.length;
  return () => {
    if (dealt === order.length) {
      for (let last = order.length - 1; last > 0; last -= 1) {
        const pick = Math.floor(random() * (last + 1));
        [order[last], order[pick]] = [order[pick]!, order[last]!];
      }
      dealt = 0;
    }
    return order[dealt++]!;
  };
}

/** REST mix over random ids (none repeated within the catalog's size) and uniformly random pages: every response cache misses. */
export function coldRestPlan(ids: IdRange, size: number, seed: number): PlannedRequest[] {
  const random = seededRandom(seed);
  const lastPage = lastListPage(ids);
  return restPlan(size, random, shuffledIds(ids, random), () => uniformInt(random, 1, lastPage));
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
  const productRank = zipfSampler(hotSpot.population, hotSpot.exponent, random);
  const pageRank = zipfSampler(100, hotSpot.exponent, random);
  return restPlan(size, random, () => popularIds[productRank() - 1]!, pageRank);
}

export interface LongTail {
  /** How many distinct products are ever asked for (issue 13: 200,000 of a 1M catalog). */
  ranks: number;
  /** Zipf exponent over those ranks and over the list pages (issue 13: 1.1). */
  exponent: number;
}

/**
 * The long-tail REST mix: Zipf over `ranks` products whose ids are spread across the whole
 * catalog (a fixed permutation, so rank 1 is not id 1), and Zipf over every list page. Far more
 * distinct responses than the in-process cache holds: it measures what the cache keeps.
 */
export function longTailRestPlan(ids: IdRange, size: number, seed: number, longTail: LongTail): PlannedRequest[] {
  const random = seededRandom(seed);
  const productRank = zipfSampler(Math.min(longTail.ranks, catalogSize(ids)), longTail.exponent, random);
  const spread = scatterRanks(catalogSize(ids));
  const pageRank = zipfSampler(lastListPage(ids), longTail.exponent, random);
  return restPlan(size, random, () => ids.min - 1 + spread(productRank()), pageRank, LONG_TAIL_MIX);
}

/** The product-page GraphQL query for random products, none repeated within the catalog's size. */
export function coldGraphqlPlan(dialect: GraphqlDialect, ids: IdRange, size: number, seed: number): PlannedRequest[] {
  const productId = shuffledIds(ids, seededRandom(seed));
  return Array.from({ length: size }, () => ({ method: 'POST', path: '/graphql', body: productPageBody(dialect, productId()) }));
}

export async function writePlan(file: string, plan: readonly PlannedRequest[]): Promise<void> {
  await writeFile(file, plan.map(({ method, path, body }) => `${method}\t${path}\t${body}\n`).join(''));
}
