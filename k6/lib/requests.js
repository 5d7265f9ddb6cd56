// The requests scenarios send: REST routes of a product-page visit and the GraphQL product page.
import http from 'k6/http';
import { productPageBody } from '../../scripts/test/product-page.js';
import { checkGraphqlResponse, checkRestResponse } from './checks.js';

/** @param {string} baseUrl @param {{ route: string, name: string, path: string }} visit */
export function getRoute(baseUrl, visit) {
  const response = http.get(`${baseUrl}${visit.path}`, { tags: { name: visit.name } });
  checkRestResponse(response, visit.route);
  return response;
}

/** @param {string} baseUrl @param {number} productId */
export function postProductPage(baseUrl, productId) {
  const response = http.post(`${baseUrl}/graphql`, productPageBody(productId), {
    headers: { 'content-type': 'application/json' },
    tags: { name: 'graphql ProductPage' },
  });
  checkGraphqlResponse(response, 'product');
  return response;
}
