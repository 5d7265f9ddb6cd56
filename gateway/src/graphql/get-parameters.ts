import { nonUtf8Parameters } from '../http/query-string.js';
import type { GraphQLParams } from './request-shape.js';

/** A GET parameter that cannot be used: answered 400, naming it. */
export class BadGetParameter extends Error {}

/**
 * The parameters of `GET /graphql?query=…&operationName=…&variables=<json>&extensions=<json>`
 * (GraphQL over HTTP; `documentId`/`doc_id` for trusted documents): each given at most once,
 * `variables` and `extensions` as JSON text, all percent-encoded UTF-8.
 */
export function parametersOfGet(search: Record<string, string | string[] | undefined>): GraphQLParams {
  const [notUtf8] = nonUtf8Parameters(search) ?? [];
  if (notUtf8 !== undefined) throw new BadGetParameter(`the ${notUtf8} parameter is not percent-encoded UTF-8`);
  const single = (name: string): string | undefined => {
    const value = search[name];
    if (Array.isArray(value)) throw new BadGetParameter(`the ${name} parameter is given ${value.length} times: give it once`);
    return value;
  };
  const json = (name: string): unknown => {
    const text = single(name);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new BadGetParameter(`the ${name} parameter is not valid JSON: ${(error as Error).message}`);
    }
  };
  const params = {
    query: single('query'),
    operationName: single('operationName'),
    variables: json('variables'),
    extensions: json('extensions'),
    documentId: single('documentId'),
    doc_id: single('doc_id'),
  };
  // As in a JSON body, a parameter not given is absent, not undefined (Apollo tells the two apart).
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
}
