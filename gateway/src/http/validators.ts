import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { PRODUCT_INPUT_AJV_OPTIONS } from '../writes/product-input.js';

/**
 * URL parts are text, so params and query strings are coerced to the schema's types; bodies are
 * JSON and checked strictly: no coercion, and unknown fields are rejected rather than dropped.
 */
export function installValidators(app: FastifyInstance): void {
  const shared = { allErrors: false, useDefaults: true, strict: false, ...PRODUCT_INPUT_AJV_OPTIONS } as const;
  const urlAjv = new Ajv({ ...shared, coerceTypes: 'array', removeAdditional: false });
  const bodyAjv = new Ajv({ ...shared, coerceTypes: false, removeAdditional: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : urlAjv).compile(schema));
}
