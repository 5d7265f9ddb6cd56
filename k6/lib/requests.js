// The requests scenarios send: REST routes of a product-page visit and the GraphQL product page.
import http from 'k6/http';
import { checkGraphqlResponse, checkRestResponse } from './checks.js';

/** @param {string} baseUrl @param {{ route: string, name: string, path: string }} visit */
export function getRoute(baseUrl, visit) {
  const response = http.get(`${baseUrl}${visit.path}`, { tags: { name: visit.name } });
  checkRestResponse(response, visit.route);
  return response;
}

export const PRODUCT_PAGE_QUERY = `query ProductPage($id: ID!) {
  product(id: $id) {
    id name slogan description category defaultPrice
    features { feature value }
    styles { id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity } }
    related { id name category defaultPrice }
  }
}`;

/** @param {string} baseUrl @param {number} productId */
export function postProductPage(baseUrl, productId) {
  const body = JSON.stringify({ operationName: 'ProductPage', query: PRODUCT_PAGE_QUERY, variables: { id: String(productId) } });
  const response = http.post(`${baseUrl}/graphql`, body, {
    headers: { 'content-type': 'application/json' },
    tags: { name: 'graphql ProductPage' },
  });
  checkGraphqlResponse(response, 'product');
  return response;
}
