export { SERVING_SCHEMA, createCatalogSchema, readSql } from './schema.js';
