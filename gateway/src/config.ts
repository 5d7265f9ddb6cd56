import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';

const integer = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** `true`/`false`, as the chart's boolean values render. */
const booleanSwitch = z.enum(['true', 'false']).transform((value) => value === 'true');

/** `https://shop.example, http://127.0.0.1:3000` → the origins, each exactly as a browser sends it. */
function parseOrigins(list: string, context: z.RefinementCtx): string[] {
  const origins = list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (URL.canParse(origin) && new URL(origin).origin === origin) continue;
    context.addIssue({
      code: z.ZodIssueCode.custom,
      message: `"${origin}" is not an origin (scheme://host[:port], no path or trailing slash)`,
    });
  }
  return origins;
}

/** The gateway's settings: one env var each, validated once at start-up. */
export const configSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: integer(0, 65535, 4000),
  METRICS_PORT: integer(0, 65535, 9464),
  METRICS_HOST: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WRITE_TOKEN: z.string().min(8, 'must be at least 8 characters').optional(),
  CACHE_TTL_SECONDS: integer(0, 86_400, 300),
  CACHE_MAX_ENTRIES: integer(1, 10_000_000, 400_000),
  CACHE_MAX_BYTES: integer(1_024, 64 * 1024 ** 3, 192 * 1024 ** 2),
  REDIS_COMMAND_TIMEOUT_MS: integer(10, 10_000, 200),
  DB_POOL_MAX: integer(1, 1_000, 20),
  DB_POOL_ACQUIRE_TIMEOUT_MS: integer(1, 60_000, 1_000),
  DB_QUEUE_MAX: integer(0, 100_000, 100),
  DB_QUEUE_MAX_WAIT_MS: integer(1, 60_000, 500),
  DB_STATEMENT_TIMEOUT_MS: integer(1, 600_000, 2_000),
  GRAPHQL_MAX_DEPTH: integer(1, 100, 8),
  GRAPHQL_MAX_COMPLEXITY: integer(1, 1_000_000, 1_000),
  GRAPHQL_INTROSPECTION: booleanSwitch.optional(),
  BODY_LIMIT_BYTES: integer(1_024, 100 * 1024 * 1024, 65_536),
  SHUTDOWN_GRACE_MS: integer(0, 600_000, 10_000),
  GRAPHQL_APQ: booleanSwitch.default('true'),
  GRAPHQL_APQ_TTL_SECONDS: integer(60, 30 * 86_400, 86_400),
  GRAPHQL_TRUSTED_DOCUMENTS: z.string().min(1).optional(),
  GRAPHQL_IDE: booleanSwitch.optional(),
  CORS_ORIGINS: z.string().min(0).default('').transform(parseOrigins),
  CORS_CREDENTIALS: booleanSwitch.default('false'),
  HTTP_CACHE_MAX_AGE_SECONDS: integer(0, 31_536_000, 60),
  HTTP_CACHE_STALE_WHILE_REVALIDATE_SECONDS: integer(0, 31_536_000, 300),
});

/**
 * What each variable means: the README tables and the chart's `gateway.config` values and schema
 * are generated from this and the schema above (`npm run config-docs`), never written by hand.
 */
export const CONFIG_DOCS: Record<keyof typeof configSchema.shape, { description: string; defaultText?: string }> = {
  DATABASE_URL: { description: 'Postgres connection URL', defaultText: '– (`npm start`: private Postgres under `.data/`)' },
  REDIS_URL: { description: 'Redis for the shared response cache and cross-replica invalidation', defaultText: '– (in-process LRU cache)' },
  HOST: { description: 'listen address' },
  PORT: { description: 'listen port' },
  METRICS_PORT: {
    description:
      'port of the separate listener serving `GET /metrics` (Prometheus text), so the public port never publishes internals; `0` takes any free port (the start-up log line names it)',
  },
  METRICS_HOST: { description: "the metrics listener's address", defaultText: '`HOST`' },
  LOG_LEVEL: { description: 'pino level: fatal, error, warn, info, debug, trace, silent' },
  WRITE_TOKEN: {
    description: 'bearer token for `POST/PUT/DELETE /products` and GraphQL mutations (≥ 8 characters)',
    defaultText: '– (writes always 401)',
  },
  CACHE_TTL_SECONDS: {
    description:
      'response cache TTL; `0` turns the cache off. Writes through the gateway and loader reloads invalidate at once on every replica; the TTL only bounds staleness after edits made in the database directly',
  },
  CACHE_MAX_ENTRIES: {
    description:
      'most entries in the in-process cache (in front of Redis, or alone without it), a cap beside the byte budget, which usually decides; once full, expired entries leave first, then TinyLFU admission lets a new response in only if it is asked for more often than the least recently used one (or as often, once that one has sat unasked for a fifth of the TTL)',
  },
  CACHE_MAX_BYTES: {
    description:
      'most bytes in the in-process cache (192 MiB; each body counted in every encoding held, plus 400 bytes per entry for its objects, as measured: about 140,000 catalog responses); usually the bound that decides. An entry larger than this is served but not cached',
  },
  REDIS_COMMAND_TIMEOUT_MS: {
    description: 'longest wait for one Redis command; after repeated failures a circuit breaker skips Redis and probes it every second',
  },
  DB_POOL_MAX: { description: 'Postgres pool size (per process; each also holds one connection listening for catalog swaps)' },
  DB_POOL_ACQUIRE_TIMEOUT_MS: { description: 'longest wait for a pool connection before answering 503' },
  DB_QUEUE_MAX: { description: 'statements that may wait for a connection; more are refused at once with 503' },
  DB_QUEUE_MAX_WAIT_MS: { description: 'a statement whose expected wait for a connection is longer is refused at once with 503' },
  DB_STATEMENT_TIMEOUT_MS: { description: 'per-statement timeout (`statement_timeout`; idle transactions get twice that)' },
  GRAPHQL_MAX_DEPTH: { description: 'deepest GraphQL query accepted' },
  GRAPHQL_MAX_COMPLEXITY: { description: 'highest GraphQL query cost accepted (introspection fields included)' },
  GRAPHQL_INTROSPECTION: {
    description: '`true`/`false`: answer introspection (`__schema`, `__type`); off, such queries are a 400',
    defaultText: 'on, off when `NODE_ENV=production`',
  },
  BODY_LIMIT_BYTES: { description: 'largest request body (413 beyond)' },
  SHUTDOWN_GRACE_MS: {
    description:
      'on SIGTERM, how long draining may take: keep-alive clients get up to half of it to receive one more response (with `Connection: close`) and hang up, then in-flight requests finish',
  },
  GRAPHQL_APQ: {
    description:
      "`true`/`false`: automatic persisted queries (Apollo's APQ protocol), stored in Redis for every replica with an in-process copy in front; off, hash-only requests are answered `PERSISTED_QUERY_NOT_SUPPORTED`",
  },
  GRAPHQL_APQ_TTL_SECONDS: {
    description: 'how long a registered persisted query is kept in Redis (a client whose hash expired re-sends the query once)',
  },
  GRAPHQL_TRUSTED_DOCUMENTS: {
    description:
      'path of a trusted-documents manifest (Apollo `persisted-query-manifest.json` or Relay `persisted_queries.json`): only its operations run, by id or by identical text; anything else is a 400. Checked at start-up',
    defaultText: '– (any operation runs)',
  },
  GRAPHQL_IDE: {
    description:
      '`true`/`false`: a browser opening `GET /graphql` gets the GraphiQL IDE (served from the gateway itself, offline); off, it gets what any client gets',
    defaultText: 'on, off when `NODE_ENV=production`',
  },
  CORS_ORIGINS: {
    description:
      'comma-separated origins (`https://shop.example`) whose pages may call the API from a browser (CORS); empty, no CORS headers are sent and cross-origin pages cannot read responses',
    defaultText: '– (no cross-origin access)',
  },
  CORS_CREDENTIALS: {
    description: '`true`/`false`: allow those origins to send cookies and HTTP authentication (`Access-Control-Allow-Credentials`)',
  },
  HTTP_CACHE_MAX_AGE_SECONDS: {
    description:
      '`Cache-Control: public, max-age=…` of catalog reads (REST GETs, GraphQL queries without errors) for browsers and CDNs; `0` sends `no-cache` (store, but revalidate with the ETag every time). Writes and errors are always `no-store`',
  },
  HTTP_CACHE_STALE_WHILE_REVALIDATE_SECONDS: {
    description:
      '`stale-while-revalidate=…` of catalog reads: how long a cache may serve a stale copy while it revalidates; `0` leaves it out',
  },
};

/** Unset GRAPHQL_INTROSPECTION or GRAPHQL_IDE: on in development, off when NODE_ENV=production. */
export type Config = Omit<z.infer<typeof configSchema>, 'GRAPHQL_INTROSPECTION' | 'GRAPHQL_IDE'> & {
  GRAPHQL_INTROSPECTION: boolean;
  GRAPHQL_IDE: boolean;
};

/** Thrown with every invalid variable listed, so one start-up attempt shows them all. */
export class ConfigError extends Error {}

/**
 * The in-process cache keeps its bodies in the V8 heap. A byte budget over half of the heap limit
 * (Node derives it from the container's memory limit: the image's Node 24 gives itself 560 MiB in 1 GiB; or --max-old-space-size)
 * leaves too little for requests under load: refused at start-up rather than dying of heap
 * exhaustion once the cache has filled.
 */
function cacheHeapProblem({ CACHE_TTL_SECONDS, CACHE_MAX_BYTES }: z.infer<typeof configSchema>, heapLimitBytes: number): string[] {
  if (CACHE_TTL_SECONDS === 0 || CACHE_MAX_BYTES <= heapLimitBytes / 2) return [];
  const mebibytes = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;
  return [
    `  CACHE_MAX_BYTES: ${mebibytes(CACHE_MAX_BYTES)} is more than half of this process's V8 heap limit (${mebibytes(heapLimitBytes)}, ` +
      'set by the memory limit or --max-old-space-size): raise the memory limit or lower CACHE_MAX_BYTES',
  ];
}

/** The metrics listener cannot share the public listener's port on the same address. */
function metricsPortProblem({ HOST, PORT, METRICS_HOST = HOST, METRICS_PORT }: z.infer<typeof configSchema>): string[] {
  if (METRICS_PORT === 0 || METRICS_PORT !== PORT || METRICS_HOST !== HOST) return [];
  return [`  METRICS_PORT: ${METRICS_PORT} is also PORT on ${HOST}: give the metrics listener a port of its own`];
}

/**
 * Reads and validates the gateway's settings; empty variables count as unset. `heapLimitBytes`
 * is this process's V8 heap limit, for the cache budget's check.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, heapLimitBytes = getHeapStatistics().heap_size_limit): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = configSchema.safeParse(present);
  const problems = parsed.success
    ? [...metricsPortProblem(parsed.data), ...cacheHeapProblem(parsed.data, heapLimitBytes)]
    : parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(`invalid gateway configuration:\n${problems.join('\n')}`);
  }
  const development = env.NODE_ENV !== 'production';
  return {
    ...parsed.data,
    GRAPHQL_INTROSPECTION: parsed.data.GRAPHQL_INTROSPECTION ?? development,
    GRAPHQL_IDE: parsed.data.GRAPHQL_IDE ?? development,
  };
}
