import { BadInputError } from '../errors.js';

export type QueryParameters = Record<string, string | string[]>;

/** Where a parsed query string keeps the names of parameters whose percent-encoding is not UTF-8. */
const NOT_UTF8 = Symbol('query parameters not UTF-8');
type ParsedQuery = QueryParameters & { [NOT_UTF8]?: string[] };

/**
 * The router's query-string parser (`a=1&b=x&b=y` → `{a: '1', b: ['x', 'y']}`, `+` a space).
 * Unlike the default, which keeps a sequence that does not decode (`%FF`, an encoded surrogate
 * `%ED%A0%80`, a cut `%E2%82`, `%zz`) as its literal text, it remembers the parameters holding
 * one: they are refused (`nonUtf8ParametersError`), never read as the text `%FF`. A value
 * without such a sequence decodes exactly as before.
 */
export function parseQueryString(text: string): QueryParameters {
  const parameters: ParsedQuery = Object.create(null) as ParsedQuery;
  if (text.length === 0) return parameters;
  for (const pair of text.split('&')) {
    if (pair.length === 0) continue;
    const separator = pair.indexOf('=');
    const rawName = separator === -1 ? pair : pair.slice(0, separator);
    const rawValue = separator === -1 ? '' : pair.slice(separator + 1);
    const name = decode(rawName);
    const value = decode(rawValue);
    if (name === undefined || value === undefined) {
      (parameters[NOT_UTF8] ??= []).push(name ?? rawName);
      continue;
    }
    const earlier = parameters[name];
    parameters[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
  }
  return parameters;
}

/** A query-string component decoded, or undefined when its percent-encoding is not UTF-8. */
function decode(component: string): string | undefined {
  const text = component.includes('+') ? component.replaceAll('+', ' ') : component;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The names of `query`'s parameters (parsed by `parseQueryString`) that are not percent-encoded UTF-8, if any. */
export function nonUtf8Parameters(query: unknown): readonly string[] | undefined {
  return (query as ParsedQuery | undefined)?.[NOT_UTF8];
}

/** A 400 naming the parameters of `query` that are not percent-encoded UTF-8; undefined when all are. */
export function nonUtf8ParametersError(query: unknown): BadInputError | undefined {
  const names = nonUtf8Parameters(query);
  if (!names) return undefined;
  const listed = names.map((name) => `"${name}"`).join(', ');
  return new BadInputError(`invalid querystring: ${listed} ${names.length === 1 ? 'is' : 'are'} not percent-encoded UTF-8`);
}
