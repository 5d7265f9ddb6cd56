import type { TableName } from '../catalog-files.js';
import type { SeededRandom } from './random.js';

/** Share of rows that get a defect in `--dirty` mode. */
const DEFECT_RATE = 0.004;

/** Ids no generated row uses, so references to them are orphans. */
const MISSING_STYLE_ID = 900_000_000;

/** Turns one clean row (CSV fields) into the record text(s) to write instead. */
type Defect = (fields: string[], context: DefectContext) => string[];

interface DefectContext {
  /** A product id past the last generated one. */
  readonly missingProductId: number;
}

const line = (fields: readonly string[]) => fields.join(',');
const withField = (fields: readonly string[], index: number, value: string) =>
  line(fields.map((field, at) => (at === index ? value : field)));
const padded =
  (index: number): Defect =>
  (fields) => [withField(fields, index, `  ${fields[index]} `)];
const replaced =
  (index: number, value: string): Defect =>
  (fields) => [withField(fields, index, value)];
const duplicateId: Defect = (fields) => [line(fields), line(fields)];
const orphanProduct =
  (index: number): Defect =>
  (fields, { missingProductId }) => [withField(fields, index, String(missingProductId))];
const orphanStyle: Defect = (fields) => [withField(fields, 1, String(MISSING_STYLE_ID))];

/**
 * Every defect class of the real export, per file. Rows pick them in turn, so a large enough
 * dirty catalog holds each one.
 */
const DEFECTS: Record<TableName, readonly Defect[]> = {
  products: [
    padded(5),
    replaced(5, 'abc'),
    replaced(5, '-25'),
    replaced(1, 'null'),
    (fields) => [withField(fields, 3, '"Has a ""quoted"", comma-filled,\nmulti-line description"')],
    duplicateId,
  ],
  features: [orphanProduct(1), replaced(3, 'null'), duplicateId, padded(1)],
  styles: [orphanProduct(1), replaced(4, '-40'), padded(4), replaced(5, 'yes'), replaced(3, 'null')],
  related: [replaced(2, '0'), orphanProduct(2), () => ['']],
  photos: [
    (fields) => [`${line(fields)},"https://example.invalid/extra-column.jpg"`],
    (fields) => [`${fields[0]},${fields[1]},${fields[2]!.slice(0, -1)},${fields[3]}`],
    (fields) => [`${fields[0]},${fields[1]},${fields[2]},${fields[3]!.slice(0, -1)}`],
    orphanStyle,
    replaced(3, 'null'),
  ],
  skus: [padded(3), replaced(3, 'many'), replaced(3, '-3'), orphanStyle, (fields) => [`${line(fields)},`], duplicateId],
};

/** Decides which rows of a `--dirty` catalog get which defect. */
export class DefectSprinkler {
  private readonly turn = new Map<TableName, number>();

  constructor(
    private readonly random: SeededRandom,
    private readonly missingProductId: number,
  ) {}

  /** The record text(s) for a row: usually just the row, sometimes a defective variant. */
  render(table: TableName, fields: string[]): string[] {
    if (!this.random.chance(DEFECT_RATE)) return [line(fields)];
    const defects = DEFECTS[table];
    const turn = this.turn.get(table) ?? 0;
    this.turn.set(table, turn + 1);
    return defects[turn % defects.length]!(fields, { missingProductId: this.missingProductId });
  }
}

/** Whole-file defects of the dirty export: a byte order mark and Windows line ends. */
export const DIRTY_FILE_TRAITS: Record<TableName, { byteOrderMark: boolean; crlf: boolean }> = {
  products: { byteOrderMark: true, crlf: false },
  features: { byteOrderMark: false, crlf: true },
  styles: { byteOrderMark: true, crlf: false },
  related: { byteOrderMark: false, crlf: false },
  photos: { byteOrderMark: false, crlf: true },
  skus: { byteOrderMark: true, crlf: true },
};
