import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parentOf, spansNamed, tagOf, type JaegerSpan, type JaegerTrace } from '../../scripts/test/jaeger.js';
import { productPageBody } from '../../scripts/test/product-page.js';
import { startTracedGateway, traceIdOf, type TracedGateway } from './support/traced-gateway.js';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A trace whose spans have all arrived: none references a parent Jaeger does not have yet. */
const complete = (trace: JaegerTrace): boolean =>
  trace.spans.every(
    (span) => span.references.every((reference) => trace.spans.some((other) => other.spanID === reference.spanID)) || isRoot(span),
  );

/** The gateway's server span: the one whose parent is not in the trace (none, or the caller's). */
const isRoot = (span: JaegerSpan): boolean => tagOf(span, 'span.kind') === 'server';

/** The Redis command the Redis cache lookup sent (the cache write after a miss sends others). */
const isRedisLookupCommand =
  (trace: JaegerTrace) =>
  (span: JaegerSpan): boolean => {
    const parent = parentOf(trace, span);
    return tagOf(span, 'db.system.name') === 'redis' && parent !== undefined && tagOf(parent, 'catalog.cache.backend') === 'redis';
  };

function rootOf(trace: JaegerTrace): JaegerSpan {
  const roots = trace.spans.filter(isRoot);
  assert.equal(roots.length, 1, `one server span, got ${roots.map((span) => span.operationName).join(', ')}`);
  return roots[0]!;
}

describe('tracing (OpenTelemetry to a real Jaeger)', { timeout: 180_000 }, () => {
  let gateway: TracedGateway;

  before(async () => {
    gateway = await startTracedGateway({ redisDatabase: 14 });
  });
  after(() => gateway?.stop());

  it('traces the product page from the HTTP edge to each SQL statement, under its DataLoader batch', async () => {
    const response = await fetch(`${gateway.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: productPageBody(1),
    });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { data: { product: { id: string } } }).data.product.id, '1');
    const traceId = traceIdOf(response);
    // Every span the assertions name, the Redis command too: the batches the gateway exports can
    // reach Jaeger in any order, and `complete` only sees a missing parent, not a missing child.
    const trace = await gateway.jaeger.waitForTrace(
      traceId,
      (candidate) =>
        complete(candidate) &&
        spansNamed(candidate, 'pg.query:*').length > 0 &&
        spansNamed(candidate, 'POST*').length > 0 &&
        candidate.spans.some(isRedisLookupCommand(candidate)),
    );

    const root = rootOf(trace);
    assert.equal(root.operationName, 'POST /graphql');
    assert.equal(tagOf(root, 'http.route'), '/graphql');
    assert.equal(tagOf(root, 'http.response.status_code'), 200);
    assert.equal(tagOf(root, 'graphql.operation.name'), 'ProductPage');
    assert.equal(tagOf(root, 'graphql.operation.type'), 'query');
    assert.equal(tagOf(root, 'catalog.cache.outcome'), 'miss');
    assert.equal(trace.processes[root.processID]?.serviceName, 'catalog-gateway');

    // The cache was asked first (memory, then Redis), and missed.
    const lookups = spansNamed(trace, 'catalog.cache.lookup');
    assert.deepEqual(lookups.map((span) => `${tagOf(span, 'catalog.cache.backend')} ${tagOf(span, 'catalog.cache.result')}`).sort(), [
      'memory miss',
      'redis miss',
    ]);
    assert.ok(trace.spans.some(isRedisLookupCommand(trace)), 'the Redis command is a child of the Redis lookup');

    // First sight of the document: graphql-js parses and validates it; graphql-jit executes it.
    for (const name of ['graphql.parse', 'graphql.validate', 'graphql.execute']) assert.equal(spansNamed(trace, name).length, 1, name);
    const execute = spansNamed(trace, 'graphql.execute')[0]!;
    assert.equal(tagOf(execute, 'graphql.operation.name'), 'ProductPage');

    // Every SQL statement sits under the shared DataLoader batch that sent it, which sits under the execution.
    const statements = spansNamed(trace, 'pg.query:*');
    assert.ok(statements.length >= 2, `the product page reads the product and its relations: ${statements.length} statements`);
    for (const statement of statements) {
      assert.equal(statement.operationName, 'pg.query:SELECT');
      assert.match(String(tagOf(statement, 'db.query.text')), /select/i);
      const batch = parentOf(trace, statement);
      assert.match(batch?.operationName ?? 'no parent', /^dataloader\.batch shared \w+$/, `${statement.operationName}'s parent`);
      const ancestors: string[] = [];
      for (let span = parentOf(trace, batch!); span; span = parentOf(trace, span)) ancestors.push(span.operationName);
      assert.ok(ancestors.includes('graphql.execute'), `the batch runs under the execution: ${ancestors.join(' < ')}`);
      assert.equal(ancestors.at(-1), 'POST /graphql');
    }
  });

  it('traces a cached REST read the hot lane answers from memory: a lookup hit and no SQL', async () => {
    const first = await fetch(`${gateway.base}/products/2`);
    assert.equal(first.status, 200);
    await first.arrayBuffer();
    const hit = await fetch(`${gateway.base}/products/2`);
    assert.equal(hit.status, 200);
    assert.equal(((await hit.json()) as { id: number }).id, 2);

    const trace = await gateway.jaeger.waitForTrace(traceIdOf(hit), (candidate) => spansNamed(candidate, 'GET*').length > 0);
    const root = rootOf(trace);
    assert.equal(root.operationName, 'GET /products/:product_id');
    assert.equal(tagOf(root, 'http.route'), '/products/:product_id');
    assert.equal(tagOf(root, 'url.path'), '/products/2');
    assert.equal(tagOf(root, 'client.address'), '127.0.0.1', 'the client, looked up as its connection opened');
    assert.equal(tagOf(root, 'http.response.status_code'), 200);
    assert.equal(tagOf(root, 'catalog.cache.outcome'), 'memory_hit');
    const [lookup, ...others] = trace.spans.filter((span) => span !== root);
    assert.deepEqual(others, [], `only the lookup under the request: ${trace.spans.map((span) => span.operationName).join(', ')}`);
    assert.equal(lookup?.operationName, 'catalog.cache.lookup');
    assert.equal(tagOf(lookup!, 'catalog.cache.result'), 'hit');
    assert.equal(parentOf(trace, lookup!), root);

    // The first read computed it: its trace has the SQL the hit spared.
    const computed = await gateway.jaeger.waitForTrace(traceIdOf(first), (candidate) => spansNamed(candidate, 'pg.query:*').length > 0);
    assert.equal(tagOf(rootOf(computed), 'catalog.cache.outcome'), 'miss');
  });

  it("continues the caller's trace from its traceparent, and follows its sampling decision", async () => {
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const response = await fetch(`${gateway.base}/products/3`, { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } });
    await response.arrayBuffer();
    assert.equal(traceIdOf(response), traceId);
    const trace = await gateway.jaeger.waitForTrace(traceId, (candidate) => spansNamed(candidate, 'GET*').length > 0);
    const root = rootOf(trace);
    assert.deepEqual(
      root.references.map(({ refType, traceID, spanID }) => ({ refType, traceID, spanID })),
      [{ refType: 'CHILD_OF', traceID: traceId, spanID: callerSpanId }],
    );
    assert.equal(response.headers.get('traceresponse'), `00-${traceId}-${root.spanID}-01`);

    // A caller that does not trace this request: neither does the gateway (it traces every other request here).
    const untraced = await fetch(`${gateway.base}/products/3`, { headers: { traceparent: `00-${hex(16)}-${hex(8)}-00` } });
    await untraced.arrayBuffer();
    assert.equal(untraced.status, 200);
    assert.equal(untraced.headers.get('traceresponse'), null);
  });
});
