// What a shopper's product-page visit asks of the gateway, one request per pick, so an
// arrival-rate scenario's iterations per second are its requests per second.
import { scatterRanks, zipfSampler } from './zipf.js';

/** Route patterns (also the `name` tag, so results group by route, not by URL). */
export const ROUTES = {
  list: '/products',
  product: '/products/:product_id',
  styles: '/products/:product_id/styles',
  related: '/products/:product_id/related',
};

/** Share of requests per route in a product-page visit: the page loads product, styles and related; some visitors browse the list. */
export const VISIT_MIX = [
  { route: 'product', weight: 0.3 },
  { route: 'styles', weight: 0.3 },
  { route: 'related', weight: 0.25 },
  { route: 'list', weight: 0.15 },
];

/** Share of list requests that go to the last 10 % of pages (deep paging, the costly case). */
export const DEEP_PAGE_SHARE = 0.1;

/**
 * @param {{ productCount: number, pageSize: number, zipfExponent: number }} config
 * @param {() => number} random
 */
export function createVisitPlanner(config, random = Math.random) {
  const productRank = zipfSampler(config.productCount, config.zipfExponent, random);
  const productId = scatterRanks(config.productCount);
  const pages = Math.max(1, Math.ceil(config.productCount / config.pageSize));
  const deepPagesFrom = Math.max(1, Math.floor(pages * 0.9) + 1);
  const shallowPage = zipfSampler(Math.max(1, deepPagesFrom - 1), config.zipfExponent, random);

  const pickRoute = () => {
    let left = random();
    for (const { route, weight } of VISIT_MIX) {
      left -= weight;
      if (left < 0) return route;
    }
    return VISIT_MIX[VISIT_MIX.length - 1].route;
  };
  const pickPage = () => (random() < DEEP_PAGE_SHARE ? deepPagesFrom + Math.floor(random() * (pages - deepPagesFrom + 1)) : shallowPage());

  return {
    pages,
    deepPagesFrom,
    pickProductId: () => productId(productRank()),
    /** @returns {{ route: string, name: string, path: string }} */
    next() {
      const route = pickRoute();
      if (route === 'list') {
        return { route, name: ROUTES.list, path: `/products?page=${pickPage()}&count=${config.pageSize}` };
      }
      const id = productId(productRank());
      return { route, name: ROUTES[route], path: ROUTES[route].replace(':product_id', String(id)) };
    },
  };
}
