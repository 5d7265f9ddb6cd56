// No client can make the gateway prepare an unbounded number of statements: a page's SQL text
// depends on a few fixed column sets, never on the selection as such, filter values are
// parameters, and a connection prepares at most a fixed number of texts (the rest run unnamed).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { countStatements, createFixtureDatabase, graphql, startGateway } from './support/gateway.js';

/** Prepared statements one pooled connection may hold (db/database.ts, MAX_PREPARED_STATEMENTS). */
const PREPARED_PER_CONNECTION = 100;
/** Column sets a page may read (repository/product-listing.ts): the SQL texts one filter, sort and size can make. */
const COLUMN_SETS = 3;

const FIELDS = ['id', 'campus', 'name', 'slogan', 'description', 'category', 'defaultPrice', 'createdAt', 'updatedAt'];
const SORTS = ['ID_ASC', 'PRICE_ASC', 'PRICE_DESC', 'NAME_ASC', 'NAME_DESC', 'NEWEST', 'OLDEST'];
const FILTER_FIELDS = ['category', 'minPrice', 'maxPrice', 'search'] as const;

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const CONNECTION = (selection: string) => `query Page($first: Int, $after: String, $filter: ProductFilter, $sort: ProductSort) {
  productsConnection(first: $first, after: $after, filter: $filter, sort: $sort) { ${selection} pageInfo { endCursor } }
}`;

describe('SQL texts and prepared statements stay bounded whatever clients send', () => {
  let app: FastifyInstance;
  before(async () => {
    // Cost limit raised: pages of 100 with every field are what the test is after.
    app = await startGateway(await createFixtureDatabase(), { CACHE_TTL_SECONDS: '0', DB_POOL_MAX: '4', GRAPHQL_MAX_COMPLEXITY: '100000' });
  });
  after(() => app.close());

  const page = async (selection: string, variables: Record<string, unknown>) => {
    const response = await graphql(app, CONNECTION(selection), variables);
    assert.equal(response.statusCode, 200, `${selection} ${JSON.stringify(variables)}: ${response.body}`);
    return response.json().data.productsConnection as { pageInfo: { endCursor: string | null } };
  };

  it('hundreds of distinct selections of one page make at most one statement per column set', async () => {
    const next = random(1);
    const selections = new Set<string>();
    while (selections.size < 300) {
      const fields = FIELDS.filter(() => next() < 0.5);
      // Aliases and fragments spell the same columns many ways.
      const spelled = fields.map((field, index) => (next() < 0.3 ? `a${index}: ${field}` : field)).join(' ');
      selections.add(next() < 0.5 ? `nodes { id ${spelled} }` : `edges { node { id ...on Product { ${spelled} } } }`);
    }
    const statements = await countStatements(app, async () => {
      for (const selection of selections) await page(selection, { first: 3, filter: { category: 'Jackets' }, sort: 'NAME_ASC' });
    });
    const texts = new Set(statements);
    assert.ok(texts.size <= COLUMN_SETS, `${selections.size} selections made ${texts.size} SQL texts:\n${[...texts].join('\n')}`);
  });

  it('hundreds of distinct filter values make no new statement: values are parameters, in canonical form', async () => {
    const next = random(2);
    const statements = await countStatements(app, async () => {
      for (let request = 0; request < 300; request += 1) {
        const price = (next() * 1000).toFixed(next() < 0.5 ? 0 : 2);
        const filter = { category: `Category ${request}`, minPrice: price, search: `word${request} other` };
        await page('nodes { id name }', { first: 5, filter, sort: 'PRICE_ASC' });
      }
    });
    assert.equal(new Set(statements).size, 1);
  });

  it('every combination a client can vary (sort × filters × page size × cursor × selection) leaves each connection within the bound', async () => {
    const next = random(3);
    const cursors = new Map<string, string>();
    for (const sort of SORTS) cursors.set(sort, (await page('nodes { id }', { first: 1, sort })).pageInfo.endCursor!);
    const statements = await countStatements(app, async () => {
      for (let round = 0; round < 3; round += 1) {
        for (const sort of SORTS) {
          for (let filterSet = 0; filterSet < 2 ** FILTER_FIELDS.length; filterSet += 1) {
            const values = { category: 'Jackets', minPrice: '1', maxPrice: '500', search: 'camo' };
            const filter = Object.fromEntries(
              FILTER_FIELDS.filter((_, bit) => filterSet & (1 << bit)).map((field) => [field, values[field]]),
            );
            for (const withCursor of [false, true]) {
              const fields = FIELDS.filter(() => next() < 0.4).join(' ');
              const first = 1 + Math.floor(next() * 100);
              await page(`nodes { id ${fields} }`, { first, filter, sort, after: withCursor ? cursors.get(sort) : null });
            }
          }
        }
      }
      // And the REST list's filtered pages, which skip rows.
      for (let request = 0; request < 100; request += 1) {
        const url = `/products?sort=${SORTS[request % SORTS.length]!.toLowerCase()}&page=${1 + (request % 5)}&count=${1 + Math.floor(next() * 100)}&min_price=1`;
        assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url);
      }
    });
    const texts = new Set(statements).size;
    console.log(`${statements.length} statements, ${texts} distinct SQL texts`);

    const { pool } = app.services.db;
    const held: pg.PoolClient[] = [];
    try {
      while (held.length < pool.totalCount) held.push(await pool.connect());
      for (const client of held) {
        const { rows } = await client.query<{ prepared: number; bytes: number }>(
          `SELECT (SELECT count(*)::int FROM pg_prepared_statements) AS prepared,
             (SELECT coalesce(sum(total_bytes), 0)::int FROM pg_backend_memory_contexts WHERE name LIKE 'CachedPlan%') AS bytes`,
        );
        const [{ prepared, bytes }] = rows as [{ prepared: number; bytes: number }];
        console.log(`a pooled connection holds ${prepared} prepared statements, ${(bytes / 1024 ** 2).toFixed(1)} MiB of cached plans`);
        assert.ok(prepared <= PREPARED_PER_CONNECTION, `${prepared} prepared statements on one connection`);
      }
    } finally {
      for (const client of held) client.release();
    }
  });
});
