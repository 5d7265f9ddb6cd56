/** The NULL marker of the loader's COPY (CSV format): bare `null`, as the export writes it. */
export const COPY_NULL = 'null';

/** COPY options that read both the export's own lines and the loader's re-rendered ones. */
export const COPY_OPTIONS = `FORMAT csv, NULL '${COPY_NULL}'`;

/** A text value as a CSV field; always quoted, so a text "null" is never read as NULL. */
export function csvText(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}
