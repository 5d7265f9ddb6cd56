// PostGraphile v5 over the serving schema `catalog`: the amber preset turns the foreign keys
// (features/styles/related → products, photos/skus → styles) into nested connections, which is
// what the product-page query of the benchmark walks.
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';

const connectionString = process.env.DATABASE_URL;
if (!connectionString) throw new Error('DATABASE_URL is required (the catalog database)');

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString,
      schemas: ['catalog'],
      // Same pool size as the gateway's default DB_POOL_MAX, so both get the same database share.
      poolConfig: { max: Number(process.env.DB_POOL_MAX ?? 20) },
    }),
  ],
  grafserv: { graphiql: false, watch: false },
  grafast: { explain: false },
};

export default preset;
