import type { CatalogFileSpec, ColumnSpec, TableName } from '../catalog-files.js';
import { COPY_NULL, copyText } from './copy-text.js';
import type { IdSet } from './id-set.js';

export type RepairKind = 'trimmed whitespace' | 'null literal' | 'empty extra columns';

export interface Rejection {
  readonly reason: string;
  readonly detail: string;
}

/** Receives the repairs made while converting a row that still loaded. */
export type RepairCounter = (kind: RepairKind) => void;

const UNSIGNED_ID = /^\d{1,15}$/;
const PRICE = /^\d{1,9}(\.\d+)?$/;
const QUANTITY = /^\d{1,10}$/;
const NEGATIVE = /^-\d+(\.\d+)?$/;
const NUMERIC = /^\d+(\.\d+)?$/;
const MAX_INT4 = 2147483647;
const FLAGS = new Map([['0', 'f'], ['1', 't'], ['false', 'f'], ['true', 't'], ['f', 'f'], ['t', 't']]);

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
 * Checks one record of a file against its column specs and renders it as a COPY text line,
 * repairing what is safe (whitespace, literal `null`, empty trailing columns) and rejecting
 * the rest with a reason. Ids of rows it accepts are added to the file's id set, so the first
 * loaded row with an id wins and later ones are rejected as duplicates.
 */
export class RowConverter {
  private readonly expectedFields: number;

  constructor(
    private readonly spec: CatalogFileSpec,
    private readonly positions: readonly number[],
    private readonly ownIds: IdSet,
    private readonly loadedIds: ReadonlyMap<TableName, IdSet>,
    private readonly repaired: RepairCounter,
    headerFieldCount: number,
  ) {
    this.expectedFields = headerFieldCount;
  }

  /** Whether a record has the header's field count, give or take empty trailing columns. */
  plausible(fields: readonly string[]): boolean {
    return fields.length === this.expectedFields || (fields.length > this.expectedFields && this.extrasAreEmpty(fields));
  }

  /** The COPY line for the record, or why it cannot load. */
  convert(fields: string[]): string | Rejection {
    try {
      return this.render(fields);
    } catch (error) {
      if (error instanceof RowRejected) return error.rejection;
      throw error;
    }
  }

  private render(fields: string[]): string {
    this.checkFieldCount(fields);
    let line = '';
    let id = 0;
    const { columns } = this.spec;
    for (let index = 0; index < columns.length; index++) {
      const column = columns[index]!;
      const value = this.cleaned(fields[this.positions[index]!]!);
      const rendered = this.renderValue(column, value);
      if (column.kind === 'id') id = Number(rendered);
      line += index === 0 ? rendered : `\t${rendered}`;
    }
    if (this.ownIds.has(id)) reject('duplicate id', `id ${id} was already loaded from an earlier line`);
    this.ownIds.add(id);
    return `${line}\n`;
  }

  private checkFieldCount(fields: readonly string[]): void {
    if (fields.length === 1 && fields[0]!.trim() === '') reject('blank line', 'the line holds no fields');
    if (fields.length > this.expectedFields && this.extrasAreEmpty(fields)) {
      this.repaired('empty extra columns');
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
    if (value.length !== raw.length) this.repaired('trimmed whitespace');
    if (value === 'null' || value === 'NULL') {
      this.repaired('null literal');
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
        return this.renderText(column.column, value);
      case 'text':
        return value === null ? COPY_NULL : this.renderText(column.column, value);
      case 'price':
        if (value === null) return COPY_NULL;
        return PRICE.test(value) ? value : numberProblem(column.column, value);
      case 'quantity':
        if (value === null) return COPY_NULL;
        if (!QUANTITY.test(value)) numberProblem(column.column, value);
        return Number(value) <= MAX_INT4 ? value : reject('number out of range', `${column.column} is ${value}`);
      case 'flag':
        return (value !== null && FLAGS.get(value.toLowerCase())) || reject('not a boolean', `${column.column} is ${JSON.stringify(value)}, expected 0 or 1`);
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

  private renderText(name: string, value: string): string {
    if (value.indexOf('\u0000') !== -1) reject('invalid character', `${name} contains a NUL byte`);
    return copyText(value);
  }
}
