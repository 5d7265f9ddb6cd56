import type { CatalogFileSpec } from '../catalog-files.js';

/** A header the loader cannot map; the whole file is refused before anything is loaded. */
export class HeaderError extends Error {
  override name = 'HeaderError';
}

/**
 * Maps a file's header onto its table columns: names are trimmed and matched case-insensitively
 * against the column name and its aliases (`productId`, `current_product_id`, `styleId`, …).
 * Returns, for each table column in spec order, the index of the field that holds it.
 */
export function resolveHeader(spec: CatalogFileSpec, headerFields: readonly string[]): number[] {
  const normalised = headerFields.map((name) => name.trim().toLowerCase());
  const used = new Set<number>();
  const positions = spec.columns.map((column) => {
    const names = [column.column, ...(column.aliases ?? [])].map((name) => name.toLowerCase());
    const index = normalised.findIndex((name) => names.includes(name));
    if (index === -1) {
      throw new HeaderError(
        `${spec.file}: header has no column for "${column.column}" (accepted names: ${names.join(', ')}); header was: ${headerFields.join(',')}`,
      );
    }
    if (used.has(index)) throw new HeaderError(`${spec.file}: header column "${headerFields[index]}" maps to two columns`);
    used.add(index);
    return index;
  });
  const unknown = normalised.filter((name, index) => !used.has(index) && name !== '');
  if (unknown.length > 0) {
    throw new HeaderError(`${spec.file}: unknown header column(s) ${unknown.join(', ')}; expected ${spec.header.join(',')}`);
  }
  return positions;
}
