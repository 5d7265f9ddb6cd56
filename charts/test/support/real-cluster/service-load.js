// k6 load against the gateway's Service from inside the cluster's network namespace: a REST page
// and a GraphQL query in turn, for DURATION with VUS virtual users. The test reads the summary
// export (http_reqs, http_req_failed) to count failed requests.
//
// UNCACHED_READS=1 adds a read no cache has seen: a product by a GraphQL document of its own
// (the alias names the VU and iteration), so it reaches Postgres, through a DataLoader batch.
// TRACE_ID_PREFIX (16 hex digits) makes every TRACE_EVERY-th iteration of each VU send sampled
// W3C traceparents with trace ids the test can name: traceId(prefix, kind, vu, iteration).
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = {
  vus: Number(__ENV.VUS),
  duration: __ENV.DURATION,
  // Only failures count here; latency on a shared 2-core machine is not this test's subject.
  discardResponseBodies: false,
};

const graphqlQuery = JSON.stringify({ query: '{ products(count: 3) { id name defaultPrice } }' });
const PRODUCTS = 200;
/** The traced requests: the test computes the same ids (real-cluster.test.ts, tracedRequestId). */
const TRACED = { rest: '01', uncached: '02' };

/** The span id of a traced request (16 hex digits); its trace id is TRACE_ID_PREFIX followed by it. */
function tracedSpanId(kind, vu, iteration) {
  return `${kind}${vu.toString(16).padStart(6, '0')}${iteration.toString(16).padStart(8, '0')}`;
}

/** A sampled traceparent for this iteration's request of `kind`, or none. */
function traceHeaders(kind) {
  const prefix = __ENV.TRACE_ID_PREFIX;
  if (!prefix || __ITER % Number(__ENV.TRACE_EVERY) !== 0) return {};
  const spanId = tracedSpanId(kind, __VU, __ITER);
  return { traceparent: `00-${prefix}${spanId}-${spanId}-01` };
}

/** A failed request goes to the log with what it got, so a failing test can say what failed. */
function logFailure(name, response) {
  if (response.status === 200) return;
  console.warn(
    `${new Date().toISOString()} ${name}: status ${response.status} ${response.error ?? ''} ${String(response.body ?? '').slice(0, 200)}`,
  );
}

function uncachedRead() {
  const id = 1 + ((__VU * 7919 + __ITER) % PRODUCTS);
  const alias = `vu${__VU}_${__ITER}`;
  const body = JSON.stringify({ query: `{ ${alias}: product(id: "${id}") { id name features { feature value } } }` });
  const headers = Object.assign({ 'content-type': 'application/json' }, traceHeaders(TRACED.uncached));
  const response = http.post(`${__ENV.BASE_URL}/graphql`, body, { headers });
  logFailure('GraphQL uncached', response);
  check(response, {
    'uncached GraphQL read 200 with the product': (r) => r.status === 200 && !r.json().errors && r.json().data[alias].id === String(id),
  });
}

export default function () {
  const page = 1 + Math.floor(Math.random() * 20);
  const rest = http.get(`${__ENV.BASE_URL}/products?page=${page}&count=5`, { headers: traceHeaders(TRACED.rest) });
  logFailure('REST', rest);
  check(rest, { 'REST 200 with 5 products': (r) => r.status === 200 && r.json().length === 5 });
  const graphql = http.post(`${__ENV.BASE_URL}/graphql`, graphqlQuery, { headers: { 'content-type': 'application/json' } });
  logFailure('GraphQL', graphql);
  check(graphql, { 'GraphQL 200 without errors': (r) => r.status === 200 && !r.json().errors });
  if (__ENV.UNCACHED_READS === '1') uncachedRead();
  sleep(Number(__ENV.PAUSE_SECONDS ?? 0));
}
