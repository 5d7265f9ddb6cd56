// k6 load against the gateway's Service from inside the cluster's network namespace: a REST page
// and a GraphQL query in turn, for DURATION with VUS virtual users. The test reads the summary
// export (http_reqs, http_req_failed) to count failed requests.
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = {
  vus: Number(__ENV.VUS),
  duration: __ENV.DURATION,
  // Only failures count here; latency on a shared 2-core machine is not this test's subject.
  discardResponseBodies: false,
};

const graphqlQuery = JSON.stringify({ query: '{ products(count: 3) { id name defaultPrice } }' });

/** A failed request goes to the log with what it got, so a failing test can say what failed. */
function logFailure(name, response) {
  if (response.status === 200) return;
  console.warn(
    `${new Date().toISOString()} ${name}: status ${response.status} ${response.error ?? ''} ${String(response.body ?? '').slice(0, 200)}`,
  );
}

export default function () {
  const page = 1 + Math.floor(Math.random() * 20);
  const rest = http.get(`${__ENV.BASE_URL}/products?page=${page}&count=5`);
  logFailure('REST', rest);
  check(rest, { 'REST 200 with 5 products': (r) => r.status === 200 && r.json().length === 5 });
  const graphql = http.post(`${__ENV.BASE_URL}/graphql`, graphqlQuery, { headers: { 'content-type': 'application/json' } });
  logFailure('GraphQL', graphql);
  check(graphql, { 'GraphQL 200 without errors': (r) => r.status === 200 && !r.json().errors });
  sleep(Number(__ENV.PAUSE_SECONDS ?? 0));
}
