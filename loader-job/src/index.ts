export { CATALOG_FILES, type CatalogFileSpec, type TableName } from './catalog-files.js';
export { generateCatalog, type GenerateCatalogOptions, type GenerateCatalogResult } from './generate/generate-catalog.js';
export { loadCatalog, type LoadCatalogOptions } from './load/load-catalog.js';
export type { LoadReport, FileLoadReport } from './load/load-report.js';
export type { RejectedRecord } from './load/rejects-writer.js';
export { SeededRandom } from './generate/random.js';
