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

/** One log line per failed request, so a failing run says what failed (status, network error) and when. */
function reportFailure(method, response) {
  if (response.status === 200) return;
  const { url, status, error, error_code: errorCode } = response;
  console.warn(`request failed: ${JSON.stringify({ at: new Date().toISOString(), method, url, status, errorCode, error })}`);
}

export default function () {
  const page = 1 + Math.floor(Math.random() * 20);
  const rest = http.get(`${__ENV.BASE_URL}/products?page=${page}&count=5`);
  reportFailure('GET', rest);
  check(rest, { 'REST 200 with 5 products': (r) => r.status === 200 && r.json().length === 5 });
  const graphql = http.post(`${__ENV.BASE_URL}/graphql`, graphqlQuery, { headers: { 'content-type': 'application/json' } });
  reportFailure('POST', graphql);
  check(graphql, { 'GraphQL 200 without errors': (r) => r.status === 200 && !r.json().errors });
  sleep(Number(__ENV.PAUSE_SECONDS ?? 0));
}
