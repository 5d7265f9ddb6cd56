export { SERVING_SCHEMA, CATALOG_SWAPPED_CHANNEL } from './serving-schema.js';
export {
  CATALOG_CHANGED_CHANNEL,
  CHANGE_LOG_TABLE,
  CAPTURE_ORIGIN_SETTING,
  GATEWAY_ORIGIN,
  installChangeCapture,
} from './change-capture.js';
export { createCatalogSchema, addCatalogConstraints, readConstraintStatements, readSql } from './catalog-ddl.js';
export {
  ID_MAX_DIGITS,
  PRODUCT_ID_PATTERN,
  PRICE_INTEGER_DIGITS,
  PRICE_FRACTION_DIGITS,
  PRICE_MAX,
  INDEXED_TEXT_MAX_LENGTH,
  PRODUCT_TEXT_MAX_LENGTH,
  textLength,
} from './input-limits.js';
