/** COPY's text format marks NULL with this token. */
export const COPY_NULL = '\\N';

const SPECIAL = /[\\\n\r\t]/;
const SPECIAL_GLOBAL = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Escapes a value for COPY … FROM STDIN in text format (cheaper for Postgres to parse than CSV). */
export function copyText(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIAL_GLOBAL, (char) => ESCAPES[char]!) : value;
}
