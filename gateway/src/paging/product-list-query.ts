import { BadInputError } from '../errors.js';
import { parseProductFilter, type FilterFieldNames, type ProductFilter } from './product-filter.js';
import { DEFAULT_SORT, sortOfRestName, type ProductSortName } from './product-sort.js';

/** The REST list's query parameters as its schema lets them through: known ones only, page and count defaulted. */
export interface ProductListParameters {
  page: number;
  count: number;
  category?: string;
  min_price?: string;
  max_price?: string;
  q?: string;
  sort?: string;
}

/**
 * Everything a `GET /products` answer depends on, and nothing else, in canonical form: requests
 * answered alike by construction parse to deeply equal values (`min_price=20` and `=20.00`, the
 * search's words in any order or case, `sort=id_asc` or no sort, `page=1` or none), built with
 * the same fields in the same order, so `JSON.stringify` of one is a canonical text of the request.
 */
export interface ProductListQuery {
  page: number;
  count: number;
  sort: ProductSortName;
  filter: ProductFilter;
}

const LIST_FILTER_PARAMETERS: FilterFieldNames = { category: 'category', minPrice: 'min_price', maxPrice: 'max_price', search: 'q' };

/**
 * Filtered or sorted lists keep the legacy page/count paging, served with OFFSET over the sort's
 * index, so they stop this deep; deeper pages are for GraphQL's productsConnection cursors.
 */
export const MAX_FILTERED_LIST_OFFSET = 10_000;

/** The checked, canonical list query: a 400 naming the parameter when one cannot be answered. */
export function parseProductListQuery(parameters: ProductListParameters): ProductListQuery {
  const { page, count, category, min_price: minPrice, max_price: maxPrice, q: search } = parameters;
  const list: ProductListQuery = {
    page,
    count,
    sort: parameters.sort === undefined ? DEFAULT_SORT : sortOfRestName(parameters.sort),
    filter: parseProductFilter({ category, minPrice, maxPrice, search }, LIST_FILTER_PARAMETERS),
  };
  if (!isLegacyList(list) && (page - 1) * count + count > MAX_FILTERED_LIST_OFFSET) {
    throw new BadInputError(
      `page: a filtered or sorted list reaches ${MAX_FILTERED_LIST_OFFSET} products deep (page × count); page further with GraphQL productsConnection cursors`,
    );
  }
  return list;
}

/** A list in the catalog's id order, unfiltered: the legacy request, answered by the pager exactly as before filters existed. */
export function isLegacyList({ sort, filter }: ProductListQuery): boolean {
  return sort === DEFAULT_SORT && Object.keys(filter).length === 0;
}
