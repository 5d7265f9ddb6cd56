import { SERVING_SCHEMA } from '@catalog/contract';
import type { Queryable } from '../db/database.js';
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

/**
 * The column sets a page reads: the columns asked for and the sort's, rounded up to the smallest
 * set holding them. Each set is another SQL text, so another prepared statement on every pooled
 * connection: a few fixed sets keep those few whatever selections clients send (any subset of
 * the columns would be hundreds), and still spare a card page the long texts and the timestamps.
 */
const CARD_COLUMNS: readonly ProductColumn[] = ['id', 'campus', 'name', 'category', 'default_price'];
const SETS_OF_COLUMNS: readonly (readonly ProductColumn[])[] = [
  CARD_COLUMNS,
  [...CARD_COLUMNS, 'created_at', 'updated_at'],
  PRODUCT_COLUMN_NAMES,
];
const COLUMN_SETS = SETS_OF_COLUMNS.map((set) => ({
  columns: new Set(set),
  sql: PRODUCT_COLUMN_NAMES.filter((column) => set.includes(column)).join(', '),
}));

/** The select list of the smallest column set holding every wanted column. */
function columnSetFor(wanted: readonly ProductColumn[]): string {
  return COLUMN_SETS.find((set) => wanted.every((column) => set.columns.has(column)))!.sql;
}

/** The name words the full-text index (products_name_words_idx) holds. */
const NAME_WORDS = `to_tsvector('simple', name)`;

/**
 * Page sizes written into the SQL as literals, a limit rounded up to the next one (the extra rows
 * are dropped): with `LIMIT $n` Postgres costs a generic plan as if a tenth of the table were
 * read, so it re-plans every execution; with a literal it keeps one plan per prepared statement.
 * A few steps keep the statements per connection few.
 */
const LIMIT_STEPS = [6, 11, 21, 26, 51, 101];

class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

function filterConditions(filter: ProductFilter, params: Parameters): string[] {
  const conditions: string[] = [];
  if (filter.category !== undefined) conditions.push(`category = ${params.add(filter.category)}`);
  if (filter.minPrice !== undefined) conditions.push(`default_price >= ${params.add(filter.minPrice, '::numeric')}`);
  if (filter.maxPrice !== undefined) conditions.push(`default_price <= ${params.add(filter.maxPrice, '::numeric')}`);
  if (filter.searchQuery !== undefined) conditions.push(`${NAME_WORDS} @@ to_tsquery('simple', ${params.add(filter.searchQuery)})`);
  return conditions;
}

/**
 * Keyset pages of products, filtered and sorted. Every page is "rows after this position, in
 * this order, LIMIT n": a range scan of the sort's index (after the category's prefix when
 * filtered by category), so page 5,000 costs what page 1 costs. A name search is answered by
 * the full-text index first, its matches then sorted.
 */
export class ProductListingRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * `limit` rows after `after` (from the start without it), skipping `skip` first (kept small by
   * the caller), with at least the `columns` asked for (all by default; see COLUMN_SETS): a page
   * showing a few fields reads and parses neither long descriptions nor timestamps.
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
    // The id and the sort column are always read: the outer ORDER BY of the queries below uses them.
    const selected = columnSetFor(['id', sort.column, ...columns]);
    const params = new Parameters();
    const conditions = filterConditions(filter, params);
    const order = sort.descending ? 'DESC' : 'ASC';
    const beyond = sort.descending ? '<' : '>';
    const idAfter = (id: number) => `id ${beyond} ${params.add(id)}`;
    const keyAfter = ({ key, id }: ListPosition) =>
      sort.column === 'id'
        ? idAfter(id)
        : `(${sort.column}, id) ${beyond} (${params.add(key, `::${KEY_TYPE[sort.column]}`)}, ${params.add(id)})`;
    const orderBy = `${sort.column === 'id' ? '' : `${sort.column} ${order}, `}id ${order}`;
    // Skipped rows (REST pages) vary too much to be literals.
    const step = skip === 0 ? (LIMIT_STEPS.find((size) => size >= limit) ?? limit) : undefined;
    const select = (where: string[]) =>
      `SELECT ${selected}, ${KEY_TEXT[sort.column]} AS sort_key FROM ${SERVING_SCHEMA}.products
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT ${step ?? params.add(skip + limit)}`;
    const page = () => (step ? `LIMIT ${step}` : `LIMIT ${params.add(limit)} OFFSET ${params.add(skip)}`);
    const query = async (sql: string) => {
      const rows = await this.db.query<ListedProduct<C>>(sql, params.values);
      return rows.length > limit ? rows.slice(0, limit) : rows;
    };

    // Ascending from the start, the index order (NULLS LAST) is already the one wanted.
    if (sort.column !== 'default_price' || (!sort.descending && after === undefined)) {
      const rows = select(after ? [...conditions, keyAfter(after)] : conditions);
      return query(skip === 0 ? rows : `SELECT * FROM (${rows}) page ORDER BY ${orderBy} ${page()}`);
    }
    // Products without a price come after every priced product, in both directions (Postgres
    // would put them first when descending): the priced rows after the position, then the
    // unpriced ones in id order, each part its own index range scan limited to the page size.
    const parts: string[] = [];
    const pastPriced = after !== undefined && after.key === null;
    if (!pastPriced) parts.push(select([...conditions, 'default_price IS NOT NULL', ...(after ? [keyAfter(after)] : [])]));
    const priceBounded = filter.minPrice !== undefined || filter.maxPrice !== undefined;
    if (!priceBounded) parts.push(select([...conditions, 'default_price IS NULL', ...(pastPriced ? [idAfter(after.id)] : [])]));
    return query(`SELECT * FROM ((${parts.join(') UNION ALL (')})) page ORDER BY default_price IS NULL, ${orderBy} ${page()}`);
  }
}
