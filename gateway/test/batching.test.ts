import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { countStatements, createCatalog, eventually, graphql, startGateway, withClient } from './support/gateway.js';
import { PRODUCT_PAGE_QUERY } from '../../scripts/test/product-page.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

// Product 1 is tiny (1 style, 1 related product); product 2 is huge (40 styles with 6 photos
// and 8 skus each, 30 related products that have styles of their own).
const SEED = `
SET search_path TO catalog;
INSERT INTO products (id, name, default_price) SELECT g, 'Product ' || g, 10 FROM generate_series(1, 40) g;
INSERT INTO features (product_id, feature, value) SELECT p, 'Feature ' || f, 'v' FROM generate_series(1, 40) p, generate_series(1, 3) f;
INSERT INTO styles (id, product_id, name, original_price) VALUES (1, 1, 'Only style', 10);
INSERT INTO styles (id, product_id, name, original_price) SELECT 100 + g, 2, 'Style ' || g, 10 FROM generate_series(1, 40) g;
INSERT INTO styles (id, product_id, name, original_price) SELECT 1000 + g, g, 'Other style', 10 FROM generate_series(3, 40) g;
INSERT INTO photos (style_id, url, thumbnail_url) SELECT s.id, 'u', 't' FROM styles s, generate_series(1, 6);
INSERT INTO skus (style_id, size, quantity) SELECT s.id, 'M', 1 FROM styles s, generate_series(1, 8);
INSERT INTO related (product_id, related_product_id) VALUES (1, 2);
INSERT INTO related (product_id, related_product_id) SELECT 2, g FROM generate_series(3, 32) g;
`;

// The product with all its relations; then the related products.
const STATEMENTS_PER_PRODUCT_PAGE = 2;

describe('DataLoader batching', () => {
  let app: FastifyInstance;
  before(async () => {
    const databaseUrl = await createTestDatabase('batching');
    await createCatalog(databaseUrl, SEED);
    // No response cache (every request must reach the database) and room for big list queries.
    app = await startGateway(databaseUrl, { CACHE_TTL_SECONDS: '0', GRAPHQL_MAX_COMPLEXITY: '100000' });
  });
  after(() => app.close());

  it('costs the same few statements for a tiny and a huge product page', async () => {
    for (const id of ['1', '2']) {
      let body: { data: { product: { styles: unknown[]; related: unknown[] } } } | undefined;
      const statements = await countStatements(app, async () => {
        body = (await graphql(app, PRODUCT_PAGE_QUERY, { id })).json();
      });
      assert.equal(statements.length, STATEMENTS_PER_PRODUCT_PAGE, `product ${id}:\n${statements.join('\n')}`);
      if (id === '2') {
        assert.equal(body!.data.product.styles.length, 40);
        assert.equal(body!.data.product.related.length, 30);
      }
    }
  });

  it('fetches the relations of a 30-product list with one statement', async () => {
    const query = '{ products(count: 30) { id styles { id photos { url } skus { id } } features { value } relatedIds } }';
    const statements = await countStatements(app, async () => {
      const response = await graphql(app, query);
      assert.equal(response.json().data.products.length, 30);
    });
    // the page of products; then all their relations
    assert.equal(statements.length, 2, statements.join('\n'));
  });

  it('serves each REST product route with one statement', async () => {
    for (const url of ['/products/2', '/products/2/related', '/products?page=2&count=10']) {
      const statements = await countStatements(app, () => app.inject({ method: 'GET', url }));
      assert.equal(statements.length, 1, `${url}:\n${statements.join('\n')}`);
    }
  });

  it('serves the REST styles route, photos and skus included, with one statement', async () => {
    const statements = await countStatements(app, async () => {
      const response = await app.inject({ method: 'GET', url: '/products/2/styles' });
      assert.equal(response.json().results.length, 40);
    });
    assert.equal(statements.length, 1, statements.join('\n'));
  });

  it('lets concurrent requests share statements', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => String(index + 3));
    const statements = await countStatements(app, async () => {
      const responses = await Promise.all(ids.map((id) => graphql(app, PRODUCT_PAGE_QUERY, { id })));
      assert.deepEqual(
        responses.map((response) => response.json().data.product.id),
        ids,
      );
    });
    // Alone, each page costs 2 statements (24 in all); together they share them.
    assert.ok(statements.length < ids.length, `${statements.length} statements for ${ids.length} concurrent pages`);
  });

  it('records DataLoader batch sizes per loader', async () => {
    const metrics = await scrapeMetrics(app);
    assert.match(metrics, /catalog_dataloader_batch_size_bucket\{le="50",loader="document"\} [1-9]/);
    assert.match(metrics, /catalog_dataloader_batch_size_count\{loader="product"\} \d+/);
  });
});

describe('app-wide batchers under load', () => {
  let databaseUrl: string;
  let app: FastifyInstance;
  before(async () => {
    databaseUrl = await createTestDatabase('batch-gate');
    await createCatalog(databaseUrl, SEED);
    // Statements are held behind a table lock below: give them time to wait for it.
    app = await startGateway(databaseUrl, { DB_STATEMENT_TIMEOUT_MS: '60000' });
  });
  after(() => app.close());

  it('lets the next batch collect ids, turn after turn, while two statements of its kind are running', async () => {
    const { batchers, db } = app.services.reads.primary;
    const sent: string[] = [];
    const record = (text: string) => sent.push(text);
    db.statements.on('statement', record);
    const nextTurns = async () => {
      for (let turn = 0; turn < 5; turn += 1) await new Promise(setImmediate);
    };
    try {
      await withClient(databaseUrl, async (locker) => {
        // Every read of products now waits, so the first two statements stay in flight.
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE catalog.products IN ACCESS EXCLUSIVE MODE');
        const running = [batchers.document.load(1)];
        await eventually('first statement sent', async () => sent.length === 1);
        running.push(batchers.document.load(2));
        await eventually('second statement sent', async () => sent.length === 2);

        // One load per turn: without the limit each would have left as its own statement.
        const held = [];
        for (const id of [3, 4, 5]) {
          held.push(batchers.document.load(id));
          await nextTurns();
        }
        assert.equal(sent.length, 2, 'no third statement while two are in flight');
        await locker.query('COMMIT');

        const rows = await Promise.all([...running, ...held]);
        assert.deepEqual(
          rows.map((row) => row?.id),
          [1, 2, 3, 4, 5],
        );
        assert.equal(sent.length, 3, 'products 3, 4 and 5 shared one statement');
      });
    } finally {
      db.statements.off('statement', record);
    }
  });
});
