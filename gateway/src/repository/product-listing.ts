import { SERVING_SCHEMA } from '@catalog/contract';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/database.js';
import type { ListPosition } from '../paging/cursor.js';
import type { ProductFilter } from '../paging/product-filter.js';
import type { ProductSort, SortColumn } from '../paging/product-sort.js';
import { PRODUCT_COLUMN_NAMES, type ProductColumn, type ProductRow } from './products.js';

/** A listed row (the columns asked for, and always the id) with its sort key as text, for the next page's cursor. */
export type ListedProduct<C extends ProductColumn = ProductColumn> = Pick<ProductRow, C | 'id'> & { sort_key: string | null };

/**
 * Each sort key rendered as text that casts back to exactly the same value: prices keep their
 * two decimals, timestamps their microseconds (a JS Date would drop them and break the keyset).
 */
const KEY_TEXT: Record<SortColumn, string> = {
  id: 'NULL::text',
  default_price: 'default_price::text',
  name: 'name',
  created_at: `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
};
const KEY_TYPE: Record<Exclude<SortColumn, 'id'>, string> = { default_price: 'numeric', name: 'text', created_at: 'timestamptz' };

/** The name words the full-text index (products_name_words_idx) holds. */
const NAME_WORDS = `to_tsvector('simple', name)`;

/**
 * Page sizes written into the SQL as literals, a limit rounded up to the next one (the extra rows
 * are dropped): with `LIMIT $n` Postgres costs a generic plan as if a tenth of the table were
 * read, so it re-plans every execution; with a literal it keeps one plan per prepared statement.
 * A few steps keep the statements per connection few.
 */
const LIMIT_STEPS = [6, 11, 21, 26, 51, 101];

/** One listing asked for: its shape picks the SQL, its values fill the SQL's parameters. */
interface Listing {
  filter: ProductFilter;
  sort: ProductSort;
  after: ListPosition | undefined;
  limit: number;
  skip: number;
  columns: readonly ProductColumn[];
}

type ParameterName = 'category' | 'minPrice' | 'maxPrice' | 'searchQuery' | 'afterKey' | 'afterId' | 'limit' | 'skip' | 'skipAndLimit';

const PARAMETER_VALUES: Record<ParameterName, (listing: Listing) => unknown> = {
  category: ({ filter }) => filter.category,
  minPrice: ({ filter }) => filter.minPrice,
  maxPrice: ({ filter }) => filter.maxPrice,
  searchQuery: ({ filter }) => filter.searchQuery,
  afterKey: ({ after }) => after?.key,
  afterId: ({ after }) => after?.id,
  limit: ({ limit }) => limit,
  skip: ({ skip }) => skip,
  skipAndLimit: ({ skip, limit }) => skip + limit,
};

/** The placeholders of a statement being written, in order: `$n` for the n-th name added. */
class Parameters {
  readonly names: ParameterName[] = [];
  add(name: ParameterName, cast = ''): string {
    this.names.push(name);
    return `$${this.names.length}${cast}`;
  }
}

/** A listing statement: its SQL, and the names of its parameters in order. */
interface ListingStatement {
  sql: string;
  parameters: ParameterName[];
}

function filterConditions(filter: ProductFilter, params: Parameters): string[] {
  const conditions: string[] = [];
  if (filter.category !== undefined) conditions.push(`category = ${params.add('category')}`);
  if (filter.minPrice !== undefined) conditions.push(`default_price >= ${params.add('minPrice', '::numeric')}`);
  if (filter.maxPrice !== undefined) conditions.push(`default_price <= ${params.add('maxPrice', '::numeric')}`);
  if (filter.searchQuery !== undefined) conditions.push(`${NAME_WORDS} @@ to_tsquery('simple', ${params.add('searchQuery')})`);
  return conditions;
}

/** Every page of one shape (filter fields given, sort, position kind, page size, columns) runs the same SQL. */
function shapeOf({ filter, sort, after, limit, skip, columns }: Listing): string {
  const filtered = `${+(filter.category !== undefined)}${+(filter.minPrice !== undefined)}${+(filter.maxPrice !== undefined)}${+(filter.searchQuery !== undefined)}`;
  const position = after === undefined ? 'start' : after.key === null ? 'unpriced' : 'key';
  return `${sort.column} ${+sort.descending} ${filtered} ${position} ${skip === 0 ? limit : 'skip'} ${columns.join(',')}`;
}

/**
 * The SQL of every listing of one shape. Every page is "rows after this position, in this order,
 * LIMIT n": a range scan of the sort's index (after the category's prefix when filtered by
 * category), so page 5,000 costs what page 1 costs. A name search is answered by the full-text
 * index first, its matches then sorted.
 */
function listingStatement({ filter, sort, after, limit, skip, columns }: Listing): ListingStatement {
  // The id and the sort column are always read: the outer ORDER BY of the queries below uses them.
  const wanted = new Set<ProductColumn>(['id', sort.column, ...columns]);
  const selected = PRODUCT_COLUMN_NAMES.filter((column) => wanted.has(column)).join(', ');
  const params = new Parameters();
  const conditions = filterConditions(filter, params);
  const order = sort.descending ? 'DESC' : 'ASC';
  const beyond = sort.descending ? '<' : '>';
  const idAfter = () => `id ${beyond} ${params.add('afterId')}`;
  const keyAfter = () =>
    sort.column === 'id'
      ? idAfter()
      : `(${sort.column}, id) ${beyond} (${params.add('afterKey', `::${KEY_TYPE[sort.column]}`)}, ${params.add('afterId')})`;
  const orderBy = `${sort.column === 'id' ? '' : `${sort.column} ${order}, `}id ${order}`;
  // Skipped rows (REST pages) vary too much to be literals.
  const step = skip === 0 ? (LIMIT_STEPS.find((size) => size >= limit) ?? limit) : undefined;
  const select = (where: string[]) =>
    `SELECT ${selected}, ${KEY_TEXT[sort.column]} AS sort_key FROM ${SERVING_SCHEMA}.products
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT ${step ?? params.add('skipAndLimit')}`;
  const page = () => (step ? `LIMIT ${step}` : `LIMIT ${params.add('limit')} OFFSET ${params.add('skip')}`);
  const statement = (sql: string): ListingStatement => ({ sql, parameters: params.names });

  // Ascending from the start, the index order (NULLS LAST) is already the one wanted.
  if (sort.column !== 'default_price' || (!sort.descending && after === undefined)) {
    const rows = select(after ? [...conditions, keyAfter()] : conditions);
    return statement(skip === 0 ? rows : `SELECT * FROM (${rows}) page ORDER BY ${orderBy} ${page()}`);
  }
  // Products without a price come after every priced product, in both directions (Postgres
  // would put them first when descending): the priced rows after the position, then the
  // unpriced ones in id order, each part its own index range scan limited to the page size.
  const parts: string[] = [];
  const pastPriced = after !== undefined && after.key === null;
  if (!pastPriced) parts.push(select([...conditions, 'default_price IS NOT NULL', ...(after ? [keyAfter()] : [])]));
  const priceBounded = filter.minPrice !== undefined || filter.maxPrice !== undefined;
  if (!priceBounded) parts.push(select([...conditions, 'default_price IS NULL', ...(pastPriced ? [idAfter()] : [])]));
  return statement(`SELECT * FROM ((${parts.join(') UNION ALL (')})) page ORDER BY default_price IS NULL, ${orderBy} ${page()}`);
}

/** How many listing shapes keep their SQL (a storefront asks a few dozen). */
const REMEMBERED_SHAPES = 1_000;

/** Keyset pages of products, filtered and sorted (see listingStatement). */
export class ProductListingRepository {
  /** The SQL of each listing shape, written once: a page then only gathers its values. */
  private readonly statements = new LRUCache<string, ListingStatement>({ max: REMEMBERED_SHAPES });

  constructor(private readonly db: Database) {}

  /**
   * `limit` rows after `after` (from the start without it), skipping `skip` first (kept small by
   * the caller), with the `columns` asked for (all by default): a page showing a few fields
   * neither reads nor parses the others (long descriptions, timestamps).
   */
  list<C extends ProductColumn = ProductColumn>(
    filter: ProductFilter,
    sort: ProductSort,
    after: ListPosition | undefined,
    limit: number,
    skip = 0,
    columns: readonly C[] = PRODUCT_COLUMN_NAMES as readonly ProductColumn[] as readonly C[],
  ): Promise<ListedProduct<C>[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    const listing: Listing = { filter, sort, after, limit, skip, columns };
    const shape = shapeOf(listing);
    let statement = this.statements.get(shape);
    if (!statement) this.statements.set(shape, (statement = listingStatement(listing)));
    const values = statement.parameters.map((name) => PARAMETER_VALUES[name](listing));
    return this.db.query<ListedProduct<C>>(statement.sql, values).then((rows) => (rows.length > limit ? rows.slice(0, limit) : rows));
  }
}
