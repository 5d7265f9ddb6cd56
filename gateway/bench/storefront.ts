/**
 * The storefront workload: a category page sorted by price (20 products: id, name, price), on
 * page 1 and deep (page 5,000, or the deepest page every category has at smaller scales), on the
 * gateway and on PostGraphile's equivalent `allProducts(condition, orderBy)` over the same
 * database. Both reach the deep page by their own cursor (`after`): the gateway's keyset cursor,
 * and the cursor PostGraphile itself returns for the row before the page (asked once, with
 * `offset`, while planning), so each side runs its best deep-page query, not an OFFSET scan.
 */
import pg from 'pg';
import { SERVING_SCHEMA } from '@catalog/contract';
import { encodeCursor } from '../src/paging/cursor.js';
import type { Contender, PlanFile } from './compare.js';
import type { PlannedRequest } from './plans.js';
import type { GraphqlDialect } from './queries.js';
import type { Workload } from './report.js';
import { startGateway } from './targets/gateway.js';
import { startPostgraphile } from './targets/postgraphile.js';
import type { ServerProcess } from './targets/server-process.js';

export const STOREFRONT_PAGE_SIZE = 20;
export const STOREFRONT_DEEP_PAGE = 5_000;
/** Pages asked for around the deep page (and their categories): distinct requests, all that deep. */
const DEEP_PAGES_PER_CATEGORY = 10;

const GATEWAY_CATEGORY_PAGE = `query CategoryPage($category: String!, $after: String) {
  productsConnection(first: ${STOREFRONT_PAGE_SIZE}, after: $after, filter: { category: $category }, sort: PRICE_ASC) {
    nodes { id name defaultPrice } pageInfo { hasNextPage endCursor }
  }
}`;

const POSTGRAPHILE_CATEGORY_PAGE = `query CategoryPage($category: String!, $after: Cursor) {
  allProducts(first: ${STOREFRONT_PAGE_SIZE}, after: $after, condition: { category: $category }, orderBy: [DEFAULT_PRICE_ASC, ROW_ID_ASC]) {
    nodes { rowId name defaultPrice } pageInfo { hasNextPage endCursor }
  }
}`;

function categoryPageBody(dialect: GraphqlDialect, category: string, after: string | null): string {
  const query = dialect === 'gateway' ? GATEWAY_CATEGORY_PAGE : POSTGRAPHILE_CATEGORY_PAGE;
  return JSON.stringify({ operationName: 'CategoryPage', query, variables: { category, after } });
}

async function postGraphql(server: ServerProcess, body: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const payload = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown };
  if (!response.ok || !payload.data || payload.errors) throw new Error(`${server.name}: ${response.status} ${JSON.stringify(payload)}`);
  return payload.data;
}

interface DeepPosition {
  category: string;
  /** Offset of the last row before the page. */
  offset: number;
  key: string;
  id: number;
}

export interface StorefrontPlans {
  deepPage: number;
  page1: Record<GraphqlDialect, PlannedRequest[]>;
  deep: Record<GraphqlDialect, PlannedRequest[]>;
}

/** The requests of both targets, checked to return the same products on a deep page. */
export async function storefrontPlans(databaseUrl: string, gateway: ServerProcess, postgraphile: ServerProcess): Promise<StorefrontPlans> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let positions: DeepPosition[];
  let deepPage: number;
  let categories: string[];
  try {
    const { rows } = await client.query<{ category: string; size: number }>(
      `SELECT category, count(*)::int AS size FROM ${SERVING_SCHEMA}.products WHERE category IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    categories = rows.map((row) => row.category);
    const smallest = Math.min(...rows.map((row) => row.size));
    deepPage = Math.min(STOREFRONT_DEEP_PAGE, Math.floor(smallest / STOREFRONT_PAGE_SIZE) - DEEP_PAGES_PER_CATEGORY);
    if (deepPage < 2) throw new Error(`categories too small for a deep page (smallest has ${smallest} products)`);
    positions = [];
    for (const category of categories) {
      for (let page = deepPage; page < deepPage + DEEP_PAGES_PER_CATEGORY; page++) {
        const offset = (page - 1) * STOREFRONT_PAGE_SIZE - 1;
        const {
          rows: [row],
        } = await client.query<{ key: string; id: string }>(
          `SELECT default_price::text AS key, id FROM ${SERVING_SCHEMA}.products WHERE category = $1
            ORDER BY default_price, id OFFSET $2 LIMIT 1`,
          [category, offset],
        );
        positions.push({ category, offset, key: row!.key, id: Number(row!.id) });
      }
    }
  } finally {
    await client.end();
  }

  const postgraphileCursor = async ({ category, offset }: DeepPosition) => {
    const query = `query Before($category: String!, $offset: Int!) {
      allProducts(first: 1, offset: $offset, condition: { category: $category }, orderBy: [DEFAULT_PRICE_ASC, ROW_ID_ASC]) { edges { cursor } }
    }`;
    const data = await postGraphql(postgraphile, JSON.stringify({ query, variables: { category, offset } }));
    return (data.allProducts as { edges: { cursor: string }[] }).edges[0]!.cursor;
  };
  const gatewayDeep = positions.map((position) =>
    categoryPageBody('gateway', position.category, encodeCursor('PRICE_ASC', position.key, position.id)),
  );
  const postgraphileDeep: string[] = [];
  for (const position of positions)
    postgraphileDeep.push(categoryPageBody('postgraphile', position.category, await postgraphileCursor(position)));

  // The comparison is fair only if both return the same products for the same page.
  const ids = (nodes: Record<string, string>[], field: string) => nodes.map((node) => node[field]).join(',');
  const fromGateway = ids(
    ((await postGraphql(gateway, gatewayDeep[0]!)).productsConnection as { nodes: Record<string, string>[] }).nodes,
    'id',
  );
  const fromPostgraphile = ids(
    ((await postGraphql(postgraphile, postgraphileDeep[0]!)).allProducts as { nodes: Record<string, string>[] }).nodes,
    'rowId',
  );
  if (fromGateway !== fromPostgraphile)
    throw new Error(`deep category page differs: gateway ${fromGateway} vs PostGraphile ${fromPostgraphile}`);

  const request = (body: string): PlannedRequest => ({ method: 'POST', path: '/graphql', body });
  return {
    deepPage,
    page1: {
      gateway: categories.map((category) => request(categoryPageBody('gateway', category, null))),
      postgraphile: categories.map((category) => request(categoryPageBody('postgraphile', category, null))),
    },
    deep: { gateway: gatewayDeep.map(request), postgraphile: postgraphileDeep.map(request) },
  };
}

export interface StorefrontRun {
  databaseUrl: string;
  /** The gateway as deployed (response cache on), measured beside the uncached one for information. */
  cachedGateway: ServerProcess;
  redisUrl: string;
  logLevel: string;
  logDir: string;
  /** Directory for a V8 CPU profile of the uncached gateway (`--profile-gateway`), if wanted. */
  cpuProfileDir: string | undefined;
  /** Another checkout (`--baseline-checkout`): its gateway, cache off too, is measured beside this one. */
  baselineCheckout: string | undefined;
  rounds: number;
  plan: (name: string, requests: PlannedRequest[]) => Promise<PlanFile>;
  compare: (workload: Workload, contenders: Contender[]) => Promise<void>;
  log: (message: string) => void;
}

/**
 * Runs the storefront workload against a gateway with its response cache off (every request
 * reaches Postgres, as every PostGraphile request does: the few category pages would otherwise be
 * answered from memory), PostGraphile, and, for information, the gateway as deployed (cache on,
 * its warm-up fills the cache). Returns the deep page measured.
 */
export async function compareStorefront(run: StorefrontRun): Promise<number> {
  const uncached = (name: string, repoRoot?: string, cpuProfileDir?: string) =>
    startGateway({
      databaseUrl: run.databaseUrl,
      redisUrl: run.redisUrl,
      logLevel: run.logLevel,
      logDir: run.logDir,
      cpuProfileDir,
      name,
      env: { CACHE_TTL_SECONDS: '0' },
      repoRoot,
    });
  const gateway = await uncached('gateway-uncached', undefined, run.cpuProfileDir);
  const baseline = run.baselineCheckout ? await uncached('gateway-baseline-uncached', run.baselineCheckout) : undefined;
  const postgraphile = await startPostgraphile({ databaseUrl: run.databaseUrl, logDir: run.logDir, log: run.log });
  try {
    const plans = await storefrontPlans(run.databaseUrl, gateway, postgraphile);
    run.log(`storefront: page 1 and page ${plans.deepPage} of every category, ${STOREFRONT_PAGE_SIZE} products by price`);
    const contenders = async (depth: 'page1' | 'deep') => {
      const gatewayPlan = await run.plan(`storefront-${depth}-gateway`, plans[depth].gateway);
      const postgraphilePlan = await run.plan(`storefront-${depth}-postgraphile`, plans[depth].postgraphile);
      const contender = (target: Contender['target'], server: ServerProcess, plan: PlanFile): Contender => ({
        target,
        server,
        warmup: plan,
        rounds: Array<PlanFile>(run.rounds).fill(plan),
        cold: false,
      });
      return [
        contender('gateway', gateway, gatewayPlan),
        contender('postgraphile', postgraphile, postgraphilePlan),
        contender('gateway, cache on', run.cachedGateway, gatewayPlan),
        ...(baseline ? [contender('gateway (baseline)', baseline, gatewayPlan)] : []),
      ];
    };
    await run.compare('Storefront category page 1 by price', await contenders('page1'));
    await run.compare('Storefront deep category page by price', await contenders('deep'));
    return plans.deepPage;
  } finally {
    await postgraphile.stop();
    await baseline?.stop();
    await gateway.stop();
  }
}
