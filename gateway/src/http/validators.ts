import type { FastifyInstance } from 'fastify';
import { createAjv } from '../validation/ajv.js';

/**
 * URL parts are text, so params and query strings are coerced to the schema's types; bodies are
 * JSON and checked strictly: no coercion, and unknown fields are rejected rather than dropped.
 */
export function installValidators(app: FastifyInstance): void {
  const shared = { allErrors: false, useDefaults: true } as const;
  const urlAjv = createAjv({ ...shared, coerceTypes: 'array', removeAdditional: false });
  const bodyAjv = createAjv({ ...shared, coerceTypes: false, removeAdditional: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : urlAjv).compile(schema));
}
