const QUOTE = 34; // "
const COMMA = 44; // ,

export type SplitResult =
  | { readonly status: 'complete'; readonly fields: string[] }
  /** A quoted field is still open at the end of the text: the record may continue on the next line. */
  | { readonly status: 'open' }
  | { readonly status: 'malformed'; readonly detail: string };

/**
 * Splits one CSV record (RFC 4180: comma separated, `"` quoted, `""` escapes, newlines allowed
 * inside quotes). It works on a single record at a time so the caller can decide, line by line,
 * whether an open quote continues onto the next physical line or is a defect to quarantine.
 */
export function splitCsvRecord(text: string): SplitResult {
  if (text.indexOf('"') === -1) return { status: 'complete', fields: text.split(',') };
  const fields: string[] = [];
  const length = text.length;
  let position = 0;
  for (;;) {
    if (text.charCodeAt(position) === QUOTE) {
      let value = '';
      let start = position + 1;
      for (;;) {
        const quote = text.indexOf('"', start);
        if (quote === -1) return { status: 'open' };
        if (text.charCodeAt(quote + 1) === QUOTE) {
          value += text.slice(start, quote + 1);
          start = quote + 2;
          continue;
        }
        value += text.slice(start, quote);
        position = quote + 1;
        break;
      }
      fields.push(value);
      if (position === length) return { status: 'complete', fields };
      if (text.charCodeAt(position) !== COMMA) {
        return { status: 'malformed', detail: `text after a closing quote in field ${fields.length}` };
      }
    } else {
      const comma = text.indexOf(',', position);
      const end = comma === -1 ? length : comma;
      const value = text.slice(position, end);
      if (value.indexOf('"') !== -1) {
        return { status: 'malformed', detail: `quote inside unquoted field ${fields.length + 1}` };
      }
      fields.push(value);
      if (comma === -1) return { status: 'complete', fields };
      position = comma;
    }
    // `position` is on a comma: the next field starts after it (and may be empty at the end).
    position++;
    if (position === length) {
      fields.push('');
      return { status: 'complete', fields };
    }
  }
}
