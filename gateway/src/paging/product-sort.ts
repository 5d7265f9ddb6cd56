/**
 * The orders a product list can be asked in. Each sorts by one column and breaks ties by id in
 * the same direction, so every order is total and a keyset cursor (sort key + id) names one
 * position. Each has a matching index (contract/sql/constraints.sql), alone and after category.
 */
export const PRODUCT_SORTS = {
  ID_ASC: { column: 'id', descending: false },
  PRICE_ASC: { column: 'default_price', descending: false },
  PRICE_DESC: { column: 'default_price', descending: true },
  NAME_ASC: { column: 'name', descending: false },
  NAME_DESC: { column: 'name', descending: true },
  NEWEST: { column: 'created_at', descending: true },
  OLDEST: { column: 'created_at', descending: false },
} as const;

export type ProductSortName = keyof typeof PRODUCT_SORTS;
export type ProductSort = (typeof PRODUCT_SORTS)[ProductSortName];
export type SortColumn = ProductSort['column'];

export const DEFAULT_SORT: ProductSortName = 'ID_ASC';

export function isProductSortName(name: string): name is ProductSortName {
  return Object.hasOwn(PRODUCT_SORTS, name);
}

/** The sorts as the REST list spells them (`?sort=price_asc`). */
export const REST_SORTS = Object.keys(PRODUCT_SORTS).map((name) => name.toLowerCase());

export function sortOfRestName(name: string): ProductSortName {
  const upper = name.toUpperCase();
  if (!isProductSortName(upper)) throw new Error(`unknown sort ${name}`); // the route's schema lets only REST_SORTS through
  return upper;
}
