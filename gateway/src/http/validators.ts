import type { FastifyInstance } from 'fastify';
import { createAjv } from '../validation/ajv.js';

/**
 * URL parts are text, so params and query strings are coerced to the schema's types; bodies are
 * JSON and checked strictly: no coercion. Unknown fields and query parameters are rejected
 * rather than dropped; a URL's are all named at once (a URL is short; a body stops at the first).
 */
export function installValidators(app: FastifyInstance): void {
  const shared = { useDefaults: true, removeAdditional: false } as const;
  const urlAjv = createAjv({ ...shared, allErrors: true, coerceTypes: 'array' });
  const bodyAjv = createAjv({ ...shared, allErrors: false, coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : urlAjv).compile(schema));
}
