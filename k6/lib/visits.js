// Iteration functions of the scenarios: each iteration sends exactly one request.
import exec from 'k6/execution';
import { getRoute, postProductPage } from './requests.js';
import { createVisitPlanner, ROUTES } from './route-mix.js';
import { config } from './scenario.js';

const planner = createVisitPlanner(config);

/** One request of a product-page visit: route mix, Zipf-popular products, deep list pages. */
export function restVisit() {
  getRoute(config.baseUrl, planner.next());
}

/** The GraphQL product page of a Zipf-popular product. */
export function graphqlProductPage() {
  postProductPage(config.baseUrl, planner.pickProductId());
}

/** Every REST route and the GraphQL page in turn, so a short run touches all of them. */
export function everyRouteInTurn() {
  const turn = exec.scenario.iterationInTest % 5;
  if (turn === 4) return graphqlProductPage();
  const id = planner.pickProductId();
  const visits = [
    { route: 'list', name: ROUTES.list, path: `/products?page=1&count=${config.pageSize}` },
    { route: 'product', name: ROUTES.product, path: `/products/${id}` },
    { route: 'styles', name: ROUTES.styles, path: `/products/${id}/styles` },
    { route: 'related', name: ROUTES.related, path: `/products/${id}/related` },
  ];
  getRoute(config.baseUrl, visits[turn]);
}
