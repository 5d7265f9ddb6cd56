import { ID_MAX_DIGITS, PRICE_INTEGER_DIGITS, textLength } from '@catalog/contract';
import type { CatalogFileSpec, ColumnSpec, TableName } from '../catalog-files.js';
import { canonicalPositiveInteger, isCanonicalDecimal, isCanonicalText } from './canonical-values.js';
import { COPY_NULL, csvText } from './copy-text.js';
import type { IdSet } from './id-set.js';

export type RepairKind = 'trimmed whitespace' | 'null literal' | 'empty extra columns';

export interface Rejection {
  readonly reason: string;
  readonly detail: string;
}

/** Receives the repairs made while converting a row that still loaded. */
export type RepairCounter = (kind: RepairKind, count?: number) => void;

const UNSIGNED_ID = new RegExp(`^\\d{1,${ID_MAX_DIGITS}}$`);
/**
 * A CSV price may carry more decimals than the column keeps; Postgres rounds them, and the
 * rounding may carry into one more integer digit, so one digit is kept in reserve.
 */
const LOADABLE_PRICE_DIGITS = PRICE_INTEGER_DIGITS - 1;
const PRICE = new RegExp(`^\\d{1,${LOADABLE_PRICE_DIGITS}}(\\.\\d+)?$`);
const QUANTITY = /^\d{1,10}$/;
const NEGATIVE = /^-\d+(\.\d+)?$/;
const NUMERIC = /^\d+(\.\d+)?$/;
const MAX_INT4 = 2147483647;
const REPLACEMENT_CHARACTER = '\uFFFD';
const FLAGS = new Map([
  ['0', 'f'],
  ['1', 't'],
  ['false', 'f'],
  ['true', 't'],
  ['f', 'f'],
  ['t', 't'],
]);

/**
 * Whether a value may exceed its column's length limit: a cheap test on UTF-16 units, which
 * never undercount characters; the careful path counts the characters.
 */
function mayBeTooLong(column: ColumnSpec, value: string): boolean {
  return column.maxLength !== undefined && value.length > column.maxLength;
}

class RowRejected extends Error {
  constructor(readonly rejection: Rejection) {
    super(rejection.reason);
  }
}

function reject(reason: string, detail: string): never {
  throw new RowRejected({ reason, detail });
}

function numberProblem(column: string, value: string): never {
  if (NEGATIVE.test(value)) reject('negative number', `${column} is ${value}`);
  if (NUMERIC.test(value)) reject('number out of range', `${column} is ${value}`);
  reject('not a number', `${column} is ${JSON.stringify(value)}`);
}

/**
 * Checks one record of a file against its column specs and turns it into a COPY (CSV) line:
 * a record whose values are all canonical is sent exactly as read; otherwise it is repaired
 * where that is safe (whitespace, literal `null`, empty trailing columns) and re-rendered, or
 * rejected with a reason. Ids of accepted rows go into the file's id set, so the first loaded
 * row with an id wins and later ones are rejected as duplicates.
 */
export class RowConverter {
  private readonly expectedFields: number;
  /** Raw records can go to COPY only when the file has no columns beyond the table's. */
  private readonly rawRecordsFit: boolean;
  /** Spec column indexes in the order the file holds them: the COPY column order. */
  private readonly fileOrder: number[];
  /** Repairs of the record being rendered, counted only if it loads. */
  private repairs: RepairKind[] = [];

  constructor(
    private readonly spec: CatalogFileSpec,
    private readonly positions: readonly number[],
    private readonly ownIds: IdSet,
    private readonly loadedIds: ReadonlyMap<TableName, IdSet>,
    private readonly repaired: RepairCounter,
    headerFieldCount: number,
  ) {
    this.expectedFields = headerFieldCount;
    this.rawRecordsFit = headerFieldCount === spec.columns.length;
    this.fileOrder = spec.columns.map((_, index) => index).sort((a, b) => positions[a]! - positions[b]!);
  }

  /** The table columns in file order, for the COPY column list. */
  get copyColumns(): string[] {
    return this.fileOrder.map((index) => this.spec.columns[index]!.column);
  }

  /** Whether a record has the header's field count, give or take empty trailing columns. */
  plausible(fields: readonly string[]): boolean {
    return fields.length === this.expectedFields || (fields.length > this.expectedFields && this.extrasAreEmpty(fields));
  }

  /** The COPY line for the record, or why it cannot load. */
  convert(fields: string[], raw: string): string | Rejection {
    // The decoder turns bytes that are not UTF-8 into U+FFFD; loading that would alter data unseen.
    if (raw.includes(REPLACEMENT_CHARACTER)) {
      return { reason: 'invalid UTF-8', detail: 'the record holds bytes that are not valid UTF-8 (or a literal U+FFFD)' };
    }
    if (this.rawRecordsFit && fields.length === this.expectedFields && this.acceptedAsRead(fields, raw)) return `${raw}\n`;
    try {
      return this.render(fields);
    } catch (error) {
      if (error instanceof RowRejected) return error.rejection;
      throw error;
    }
  }

  /**
   * Whether every value is already canonical, so the raw record can go to COPY unchanged
   * (its id is then recorded). Anything unusual returns false for the careful path.
   */
  private acceptedAsRead(fields: readonly string[], raw: string): boolean {
    const { columns } = this.spec;
    let id = -1;
    let nullLiterals = 0;
    for (let index = 0; index < columns.length; index++) {
      const column = columns[index]!;
      const value = fields[this.positions[index]!]!;
      switch (column.kind) {
        case 'id':
          id = canonicalPositiveInteger(value, ID_MAX_DIGITS);
          if (id === -1 || this.ownIds.has(id)) return false;
          break;
        case 'reference': {
          const parentId = canonicalPositiveInteger(value, ID_MAX_DIGITS);
          if (parentId === -1 || !this.loadedIds.get(column.references!)!.has(parentId)) return false;
          break;
        }
        case 'requiredText':
          if (!isCanonicalText(value) || mayBeTooLong(column, value)) return false;
          break;
        case 'flag':
          if (value !== '0' && value !== '1') return false;
          break;
        default:
          if (value !== 'null') {
            if (!this.canonicalNullable(column, value)) return false;
          } else if (raw.includes('"null"')) {
            return false; // a quoted "null" would reach Postgres as text; the careful path decides
          } else {
            nullLiterals++;
          }
      }
    }
    this.ownIds.add(id);
    if (nullLiterals > 0) this.repaired('null literal', nullLiterals);
    return true;
  }

  private canonicalNullable(column: ColumnSpec, value: string): boolean {
    if (column.kind === 'text') return isCanonicalText(value) && !mayBeTooLong(column, value);
    if (column.kind === 'price') return isCanonicalDecimal(value, LOADABLE_PRICE_DIGITS);
    const quantity = canonicalPositiveInteger(value, 10);
    return (quantity !== -1 && quantity <= MAX_INT4) || value === '0';
  }

  private render(fields: string[]): string {
    this.repairs = [];
    this.checkFieldCount(fields);
    const rendered: string[] = [];
    let id = 0;
    this.spec.columns.forEach((column, index) => {
      rendered[index] = this.renderValue(column, this.cleaned(fields[this.positions[index]!]!));
      if (column.kind === 'id') id = Number(rendered[index]);
    });
    if (this.ownIds.has(id)) reject('duplicate id', `id ${id} was already loaded from an earlier line`);
    this.ownIds.add(id);
    this.repairs.forEach((kind) => this.repaired(kind));
    return `${this.fileOrder.map((index) => rendered[index]).join(',')}\n`;
  }

  private checkFieldCount(fields: readonly string[]): void {
    if (fields.length === 1 && fields[0]!.trim() === '') reject('blank line', 'the line holds no fields');
    if (fields.length > this.expectedFields && this.extrasAreEmpty(fields)) {
      this.repairs.push('empty extra columns');
      return;
    }
    if (fields.length !== this.expectedFields) {
      reject('wrong column count', `expected ${this.expectedFields} fields, found ${fields.length}`);
    }
  }

  private extrasAreEmpty(fields: readonly string[]): boolean {
    for (let index = this.expectedFields; index < fields.length; index++) if (fields[index]!.trim() !== '') return false;
    return true;
  }

  /** Trimmed value, or null for an empty field or a literal `null`. */
  private cleaned(raw: string): string | null {
    const value = raw.trim();
    if (value.length !== raw.length) this.repairs.push('trimmed whitespace');
    if (value === 'null' || value === 'NULL') {
      this.repairs.push('null literal');
      return null;
    }
    return value === '' ? null : value;
  }

  private renderValue(column: ColumnSpec, value: string | null): string {
    switch (column.kind) {
      case 'id':
        return this.renderId(column.column, value);
      case 'reference':
        return this.renderReference(column, value);
      case 'requiredText':
        if (value === null) reject('missing value', `${column.column} is empty`);
        return this.renderText(column, value);
      case 'text':
        return value === null ? COPY_NULL : this.renderText(column, value);
      case 'price':
        if (value === null) return COPY_NULL;
        return PRICE.test(value) ? value : numberProblem(column.column, value);
      case 'quantity':
        if (value === null) return COPY_NULL;
        if (!QUANTITY.test(value)) numberProblem(column.column, value);
        return Number(value) <= MAX_INT4 ? value : reject('number out of range', `${column.column} is ${value}`);
      case 'flag':
        return (
          (value !== null && FLAGS.get(value.toLowerCase())) ||
          reject('not a boolean', `${column.column} is ${JSON.stringify(value)}, expected 0 or 1`)
        );
    }
  }

  private parseId(name: string, value: string | null): number {
    if (value === null) reject('missing value', `${name} is empty`);
    return UNSIGNED_ID.test(value) ? Number(value) : numberProblem(name, value);
  }

  private renderId(name: string, value: string | null): string {
    const id = this.parseId(name, value);
    if (id === 0) reject('number out of range', `${name} is 0, ids start at 1`);
    return String(id);
  }

  private renderReference(column: ColumnSpec, value: string | null): string {
    const id = this.parseId(column.column, value);
    if (id === 0 && column.zeroReason) reject(column.zeroReason, `${column.column} is 0`);
    if (!this.loadedIds.get(column.references!)?.has(id)) {
      reject(`orphan ${column.column}`, `${column.column} ${id} matches no loaded ${column.references} row`);
    }
    return String(id);
  }

  private renderText(column: ColumnSpec, value: string): string {
    if (value.indexOf('\u0000') !== -1) reject('invalid character', `${column.column} contains a NUL byte`);
    if (mayBeTooLong(column, value)) {
      const length = textLength(value);
      if (length > column.maxLength!) {
        reject('text too long', `${column.column} has ${length} characters, at most ${column.maxLength} fit the storefront indexes`);
      }
    }
    return csvText(value);
  }
}
