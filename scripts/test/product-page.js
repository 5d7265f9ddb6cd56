// The product-page query lives with the GraphQL IDE, which opens on it (inside the gateway's
// image build context); the tests, benchmarks and k6 scenarios take it from here.
export { PRODUCT_PAGE_QUERY, productPageBody } from '../../gateway/ide/product-page.js';
