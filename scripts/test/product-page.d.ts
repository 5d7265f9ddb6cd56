export { PRODUCT_PAGE_QUERY, productPageBody } from '../../gateway/ide/product-page.js';
