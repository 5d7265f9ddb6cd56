import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';
import { costBudgetProblems, parseClientsConfig, parseNetworks } from './limits/limits-config.js';

const integer = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** `true`/`false`, as the chart's boolean values render. */
const booleanSwitch = z.enum(['true', 'false']).transform((value) => value === 'true');

/** `a, b,,c ` → `['a', 'b', 'c']`: the items of a comma-separated setting. */
const commaSeparated = (list: string): string[] =>
  list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** `https://shop.example, http://127.0.0.1:3000` → the origins, each exactly as a browser sends it. */
function parseOrigins(list: string, context: z.RefinementCtx): string[] {
  const origins = commaSeparated(list);
  for (const origin of origins) {
    if (URL.canParse(origin) && new URL(origin).origin === origin) continue;
    context.addIssue({
      code: z.ZodIssueCode.custom,
      message: `"${origin}" is not an origin (scheme://host[:port], no path or trailing slash)`,
    });
  }
  return origins;
}

/** `postgres://replica-1/catalog,postgres://replica-2/catalog` → the replicas' URLs, in order (their target names follow it). */
function parseReadUrls(list: string, context: z.RefinementCtx): string[] {
  const urls = commaSeparated(list);
  urls.forEach((url, index) => {
    const problem = !URL.canParse(url)
      ? 'is not a URL'
      : !['postgres:', 'postgresql:'].includes(new URL(url).protocol)
        ? 'is not a postgres:// URL'
        : urls.indexOf(url) !== index
          ? 'is listed twice'
          : undefined;
    if (problem) context.addIssue({ code: z.ZodIssueCode.custom, message: `entry ${index + 1} ${problem}` });
  });
  return urls;
}

/** `redis-a:26379, redis-b:26379` → the Sentinels' addresses. */
function parseHostPorts(list: string, context: z.RefinementCtx): { host: string; port: number }[] {
  const addresses = commaSeparated(list);
  return addresses.flatMap((address) => {
    const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(address);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) {
      context.addIssue({ code: z.ZodIssueCode.custom, message: `"${address}" is not host:port` });
      return [];
    }
    return [{ host: match[1]!.replace(/^\[|\]$/g, ''), port }];
  });
}

/** `http://varnish-0:6081, http://varnish-1:6081` → the URLs purges are sent to. */
function parseHttpUrls(list: string, context: z.RefinementCtx): string[] {
  const urls = commaSeparated(list);
  urls.forEach((url, index) => {
    const problem = !URL.canParse(url)
      ? 'is not a URL'
      : !/^https?:$/.test(new URL(url).protocol)
        ? 'is not an http:// or https:// URL'
        : undefined;
    if (problem) context.addIssue({ code: z.ZodIssueCode.custom, message: `entry ${index + 1} ${problem}` });
  });
  return urls;
}

/** An HTTP header name (RFC 9110 token characters). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const headerNameOrNoneText = z.string().regex(HEADER_NAME, 'must be an HTTP header name, or none');

/** A response header's name, or `none` for no such header (lower-cased: how Node writes them). */
const headerNameOrNone = (fallback: string) =>
  headerNameOrNoneText.default(fallback).transform((name) => (name.toLowerCase() === 'none' ? undefined : name.toLowerCase()));

/** A header name or `none` (null: left out), unset (undefined) when the gateway is to choose. */
const optionalHeaderNameOrNone = headerNameOrNoneText
  .optional()
  .transform((name) => (name === undefined ? undefined : name.toLowerCase() === 'none' ? null : name.toLowerCase()));

const httpUrl = (fallback: string) =>
  z
    .string()
    .url()
    .refine((url) => /^https?:$/.test(new URL(url).protocol), 'must be an http:// or https:// URL')
    .default(fallback)
    .transform((url) => url.replace(/\/+$/, ''));

/** The standard OTEL_TRACES_SAMPLER values a ratio or a parent's decision can express (telemetry/sampling.ts). */
/** The OTEL_PROPAGATORS the gateway implements: W3C trace context and baggage (`none`: neither). */
const PROPAGATOR_NAMES = ['tracecontext', 'baggage'] as const;
const propagators = z
  .string()
  .default('tracecontext,baggage')
  .transform((list, context) => {
    const names = commaSeparated(list);
    if (names.length === 1 && names[0] === 'none') return [];
    const unknown = names.filter((name) => !(PROPAGATOR_NAMES as readonly string[]).includes(name));
    if (unknown.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `${unknown.join(', ')}: the gateway propagates ${PROPAGATOR_NAMES.join(', ')} (or none)`,
      });
    }
    return names as (typeof PROPAGATOR_NAMES)[number][];
  });

export const TRACES_SAMPLERS = [
  'parentbased_traceidratio',
  'traceidratio',
  'parentbased_always_on',
  'always_on',
  'parentbased_always_off',
  'always_off',
] as const;

/** The gateway's settings: one env var each, validated once at start-up. */
export const configSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  DATABASE_READ_URLS: z.string().min(0).default('').transform(parseReadUrls),
  DATABASE_READ_MAX_LAG_MS: integer(100, 300_000, 5_000),
  REDIS_URL: z.string().url().optional(),
  REDIS_SENTINELS: z.string().default('').transform(parseHostPorts),
  REDIS_SENTINEL_MASTER: z.string().min(1).default('mymaster'),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
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
  REDIS_WRITE_WAIT_MS: integer(0, 60_000, 5_000),
  CACHE_MAX_ENTRIES_PER_TAG: integer(1, 10_000_000, 20_000),
  CACHE_MAX_ENTRY_BYTES: integer(1_024, 512 * 1024 ** 2, 1024 ** 2),
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
  HTTP_CACHE_SHARED_MAX_AGE_SECONDS: integer(0, 31_536_000, 3_600),
  EDGE_SURROGATE_KEY_HEADER: headerNameOrNone('Surrogate-Key'),
  EDGE_CACHE_TAG_HEADER: optionalHeaderNameOrNone,
  EDGE_PURGE_VARNISH_URLS: z.string().min(0).default('').transform(parseHttpUrls),
  EDGE_PURGE_FASTLY_SERVICE_ID: z.string().min(0).default(''),
  EDGE_PURGE_FASTLY_API_TOKEN: z.string().min(1).optional(),
  EDGE_PURGE_FASTLY_API_URL: httpUrl('https://api.fastly.com'),
  EDGE_PURGE_CLOUDFLARE_ZONE_ID: z.string().min(0).default(''),
  EDGE_PURGE_CLOUDFLARE_API_TOKEN: z.string().min(1).optional(),
  EDGE_PURGE_CLOUDFLARE_API_URL: httpUrl('https://api.cloudflare.com/client/v4'),
  EDGE_PURGE_QUEUE_MAX_TAGS: integer(1, 10_000_000, 10_000),
  EDGE_PURGE_TIMEOUT_MS: integer(100, 120_000, 5_000),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .refine((url) => /^https?:$/.test(new URL(url).protocol), 'must be an http:// or https:// URL (OTLP over HTTP)')
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('catalog-gateway'),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_SDK_DISABLED: booleanSwitch.default('false'),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  OTEL_PROPAGATORS: propagators,
  OTEL_TRACES_SAMPLER: z.enum(TRACES_SAMPLERS).default('parentbased_traceidratio'),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a ratio from 0 to 1, e.g. 0.01')
    .default('0.01'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer(1_000, 3_600_000, 75_000),
  HTTP_HEADERS_TIMEOUT_MS: integer(1_000, 600_000, 10_000),
  HTTP_REQUEST_TIMEOUT_MS: integer(1_000, 3_600_000, 30_000),
  RATE_LIMIT_ENABLED: booleanSwitch.default('false'),
  RATE_LIMIT_WINDOW_SECONDS: integer(1, 86_400, 60),
  RATE_LIMIT_REQUESTS: integer(1, 1_000_000_000, 1_200),
  RATE_LIMIT_GRAPHQL_COST: integer(1, 1_000_000_000_000, 200_000),
  RATE_LIMIT_API_KEY_HEADER: z
    .string()
    .regex(HEADER_NAME, 'must be an HTTP header name')
    .default('x-api-key')
    .transform((name) => name.toLowerCase()),
  RATE_LIMIT_TRUSTED_PROXIES: z.string().min(0).default('').transform(parseNetworks),
  RATE_LIMIT_CLIENTS: z.string().min(0).default('').transform(parseClientsConfig),
  RATE_LIMIT_SYNC_MS: integer(5, 10_000, 50),
});

/**
 * What each variable means: the README tables and the chart's `gateway.config` values and schema
 * are generated from this and the schema above (`npm run config-docs`), never written by hand.
 */
export const CONFIG_DOCS: Record<keyof typeof configSchema.shape, { description: string; defaultText?: string }> = {
  DATABASE_URL: { description: 'Postgres connection URL', defaultText: '– (`npm start`: private Postgres under `.data/`)' },
  DATABASE_READ_URLS: {
    description:
      "comma-separated URLs of streaming replicas of `DATABASE_URL` (targets `replica-1`, `replica-2`, … in this order) that may serve reads; each gets a pool like the primary's. A replica that fails, lags or is not in recovery leaves the rotation until it is healthy again; with none left, reads go to the primary",
    defaultText: '– (every read on the primary)',
  },
  DATABASE_READ_MAX_LAG_MS: {
    description:
      'a replica whose replay lag (how long ago the primary was where the replica has replayed to) exceeds this leaves the rotation; keep it well above the 100 ms the positions are polled at',
  },
  REDIS_URL: {
    description: 'Redis for the shared response cache and cross-replica invalidation (or use `REDIS_SENTINELS`)',
    defaultText: '– (in-process LRU cache)',
  },
  REDIS_SENTINELS: {
    description:
      'comma-separated `host:port` of Redis Sentinels, instead of `REDIS_URL`: the gateway follows the master group `REDIS_SENTINEL_MASTER` through failovers',
    defaultText: '– (no Sentinels)',
  },
  REDIS_SENTINEL_MASTER: { description: "the Sentinels' master group name (with `REDIS_SENTINELS`)" },
  REDIS_PASSWORD: { description: 'Redis `AUTH` password (with `REDIS_URL` or `REDIS_SENTINELS`)', defaultText: '– (none)' },
  REDIS_SENTINEL_PASSWORD: { description: "the Sentinels' own `AUTH` password, when they have one", defaultText: '– (none)' },
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
      'response cache TTL; `0` turns the cache off. Writes through the gateway and loader reloads invalidate at once on every replica, changes made in the database directly within 5 s (change capture); the TTL only bounds staleness for what capture does not see (a catalog a loader older than capture swapped in)',
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
  REDIS_WRITE_WAIT_MS: {
    description:
      'with Redis, how long a write waits for Redis to take its invalidation: not taken by then, the write is refused with 503 and nothing is written (a write Redis cannot announce could be served stale by other replicas)',
  },
  CACHE_MAX_ENTRIES_PER_TAG: {
    description:
      'most responses Redis keeps per tag (a product, or the product list) between two writes to it: bounds what any client can add to Redis by varying its requests. Every list page carries the product-list tag, so list pages past this many are served from memory or Postgres, not Redis (the default keeps the pages of 100,000 products at the default count; total size is for the Redis maxmemory to bound): raise it where clients read list pages deeper (a write costs the same whatever the count: stale entries are found on read, not deleted)',
  },
  CACHE_MAX_ENTRY_BYTES: { description: 'largest response body kept in Redis (larger ones are served, not shared)' },
  DB_POOL_MAX: {
    description:
      'Postgres pool size per process and per target (the primary and each read replica); the process also holds one connection listening for catalog swaps, one following the change log on the primary and, with read replicas, one per target polling its WAL position',
  },
  DB_POOL_ACQUIRE_TIMEOUT_MS: {
    description:
      "longest wait for a pool connection before answering 503 (at least 5 s for a replica's pool, and for the primary's when there are replicas: it has to open the connections a failed replica's reads fall back on)",
  },
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
  HTTP_CACHE_SHARED_MAX_AGE_SECONDS: {
    description:
      '`s-maxage=…` of catalog reads when a purge target is configured (`EDGE_PURGE_*`): how long shared caches (a CDN, Varnish) may keep them, long because every change purges them; without a purge target no `s-maxage` is sent and shared caches follow `max-age`. Also the bound on what a shared cache serves stale while its purges fail (plus `stale-while-revalidate`)',
  },
  EDGE_SURROGATE_KEY_HEADER: {
    description:
      "response header carrying a catalog read's tags space-separated (`product:<id>`, `products:list`, and `catalog` on every one), as Fastly and Varnish xkey read them; `none` leaves it out (refused while Fastly is purged, or Varnish with no other tag header). Never on writes, errors or rate-limited (personalised) answers",
  },
  EDGE_CACHE_TAG_HEADER: {
    description:
      'response header carrying the same tags comma-separated, as Cloudflare (`Cache-Tag`) and Akamai (`Edge-Cache-Tag`) read them; `none` leaves it out (refused while Cloudflare is purged). Unset, it is sent only to the CDN the gateway purges that reads it (Cloudflare): each tag header costs every catalog read its bytes, and a CDN reads one',
    defaultText: '`Cache-Tag` with `EDGE_PURGE_CLOUDFLARE_ZONE_ID`, else none',
  },
  EDGE_PURGE_VARNISH_URLS: {
    description:
      'comma-separated URLs of Varnish servers to purge: each change sends `PURGE` with the changed tags in an `xkey-purge` header (see charts/catalog-gateway/files/varnish/catalog.vcl), from the one gateway that made the change',
    defaultText: '– (no Varnish purges)',
  },
  EDGE_PURGE_FASTLY_SERVICE_ID: {
    description: 'Fastly service whose cache is purged by surrogate key on every change (needs `EDGE_PURGE_FASTLY_API_TOKEN`)',
    defaultText: '– (no Fastly purges)',
  },
  EDGE_PURGE_FASTLY_API_TOKEN: {
    description: 'Fastly API token with purge_select scope, sent as `Fastly-Key` (never logged)',
    defaultText: '– (none)',
  },
  EDGE_PURGE_FASTLY_API_URL: { description: "Fastly's API (a test points it elsewhere)" },
  EDGE_PURGE_CLOUDFLARE_ZONE_ID: {
    description: 'Cloudflare zone whose cache is purged by cache tag on every change (needs `EDGE_PURGE_CLOUDFLARE_API_TOKEN`)',
    defaultText: '– (no Cloudflare purges)',
  },
  EDGE_PURGE_CLOUDFLARE_API_TOKEN: {
    description: 'Cloudflare API token with Cache Purge permission, sent as a Bearer token (never logged)',
    defaultText: '– (none)',
  },
  EDGE_PURGE_CLOUDFLARE_API_URL: { description: "Cloudflare's API (a test points it elsewhere)" },
  EDGE_PURGE_QUEUE_MAX_TAGS: {
    description:
      'most distinct tags waiting to be purged per target (while a target fails, or changes outrun it); past that the queue is replaced by one purge of every catalog response (the `catalog` tag): nothing is lost, more is refetched',
  },
  EDGE_PURGE_TIMEOUT_MS: {
    description: 'longest wait for one purge request; a purge that fails or times out is retried with exponential backoff',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    description:
      'OpenTelemetry collector (OTLP over HTTP, e.g. Jaeger on `http://jaeger:4318`): set, the gateway traces requests and sends the traces to `<endpoint>/v1/traces`; unset, tracing is off and costs nothing',
    defaultText: '– (tracing off)',
  },
  OTEL_SERVICE_NAME: { description: 'the `service.name` the traces carry (over one in `OTEL_RESOURCE_ATTRIBUTES`)' },
  OTEL_RESOURCE_ATTRIBUTES: {
    description:
      "more resource attributes of every span, `key=value,key=value` (e.g. `deployment.environment=prod,team=catalog`), merged over what the host, OS and process detectors find and the SDK's `telemetry.sdk.*`; the chart adds the pod's `k8s.pod.name`, `k8s.namespace.name` and `k8s.node.name`",
    defaultText: '–',
  },
  OTEL_SDK_DISABLED: { description: '`true` turns tracing off whatever else is set (the OpenTelemetry switch)' },
  OTEL_TRACES_EXPORTER: { description: '`otlp` sends traces to `OTEL_EXPORTER_OTLP_ENDPOINT`; `none` traces nothing' },
  OTEL_PROPAGATORS: {
    description:
      'the context the gateway reads from and passes on with requests: `tracecontext` (`traceparent`), `baggage`, both (comma-separated), or `none`',
  },
  OTEL_TRACES_SAMPLER: {
    description:
      'which requests are traced: `parentbased_traceidratio` traces a ratio (`OTEL_TRACES_SAMPLER_ARG`) of requests and every request whose `traceparent` says its caller traces it; `traceidratio` ignores the caller; `*always_on` / `*always_off` trace every / no request (the `parentbased_` ones following the caller when it sends `traceparent`)',
  },
  OTEL_TRACES_SAMPLER_ARG: { description: 'the ratio of the `*traceidratio` samplers, 0 to 1 (`0.01`: one request in a hundred)' },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    description:
      'how long an idle keep-alive connection stays open (sent as `Keep-Alive: timeout=…`). Keep it longer than the idle timeout of every proxy or load balancer in front (60 s for AWS ALB and nginx; set `620000` behind Google Cloud load balancers, whose backend keep-alive is 600 s), so the proxy, not the gateway, closes idle connections and never sends a request on one the gateway is closing',
  },
  HTTP_HEADERS_TIMEOUT_MS: {
    description:
      "longest time a client may take to send a request's headers (checked every second); slower is a 408 and the connection is closed, so slow clients cannot hold connections open",
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    description:
      'longest time a client may take to send a whole request, body included (at least `HTTP_HEADERS_TIMEOUT_MS`); slower is a 408 and the connection is closed. Responses are not bounded by it',
  },
  RATE_LIMIT_ENABLED: {
    description:
      "`true`/`false`: limit each client's requests and GraphQL cost per window (429 with `Retry-After` and `RateLimit` headers), counted across replicas through Redis",
  },
  RATE_LIMIT_WINDOW_SECONDS: { description: 'length of the rate-limit window; windows start at multiples of it (Unix time)' },
  RATE_LIMIT_REQUESTS: { description: 'requests a client may make per window, unless RATE_LIMIT_CLIENTS says otherwise' },
  RATE_LIMIT_GRAPHQL_COST: {
    description:
      'GraphQL cost (as the complexity limit computes it) a client may spend per window, unless RATE_LIMIT_CLIENTS says otherwise; at least GRAPHQL_MAX_COMPLEXITY',
  },
  RATE_LIMIT_API_KEY_HEADER: { description: "request header carrying a client's API key (keys are listed in RATE_LIMIT_CLIENTS)" },
  RATE_LIMIT_TRUSTED_PROXIES: {
    description:
      'comma-separated addresses or CIDR blocks (IPv4, IPv6) of the proxies in front of the gateway: only from these is `X-Forwarded-For` believed when a client is known by its address',
    defaultText: '– (the socket address counts)',
  },
  RATE_LIMIT_CLIENTS: {
    description:
      'JSON: known clients by the SHA-256 of their key (`{"clients": {"shop": {"keySha256": "…", "requests": 6000}}, "classes": {"ip": {"requests": 300}}}`), per-client and per-class limits, `"exempt": true` for internal clients; see the README',
    defaultText: '– (every client by its address, default limits)',
  },
  RATE_LIMIT_SYNC_MS: {
    description:
      "how often each replica writes its counts of its clients to Redis and reads the other replicas' back; a client may overrun its limit by what it sent other replicas in that time",
  },
};

/**
 * Unset GRAPHQL_INTROSPECTION or GRAPHQL_IDE: on in development, off when NODE_ENV=production.
 * Unset EDGE_CACHE_TAG_HEADER: Cloudflare's name when Cloudflare is purged, else left out.
 */
export type Config = Omit<z.infer<typeof configSchema>, 'GRAPHQL_INTROSPECTION' | 'GRAPHQL_IDE' | 'EDGE_CACHE_TAG_HEADER'> & {
  GRAPHQL_INTROSPECTION: boolean;
  GRAPHQL_IDE: boolean;
  EDGE_CACHE_TAG_HEADER: string | undefined;
};

/** The comma-separated tag header: as named, left out (none), or unset, Cloudflare's when Cloudflare is purged. */
function cacheTagHeader({ EDGE_CACHE_TAG_HEADER, EDGE_PURGE_CLOUDFLARE_ZONE_ID }: z.infer<typeof configSchema>): string | undefined {
  if (EDGE_CACHE_TAG_HEADER !== undefined) return EDGE_CACHE_TAG_HEADER ?? undefined;
  return EDGE_PURGE_CLOUDFLARE_ZONE_ID ? 'cache-tag' : undefined;
}

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

/** Node refuses a headers timeout longer than the request timeout, which includes the headers. */
function timeoutProblem({ HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS }: z.infer<typeof configSchema>): string[] {
  if (HTTP_HEADERS_TIMEOUT_MS <= HTTP_REQUEST_TIMEOUT_MS) return [];
  return [
    `  HTTP_HEADERS_TIMEOUT_MS: ${HTTP_HEADERS_TIMEOUT_MS} is longer than HTTP_REQUEST_TIMEOUT_MS (${HTTP_REQUEST_TIMEOUT_MS}), which includes the headers`,
  ];
}

/** A read URL naming the primary itself would never serve reads (the primary is not in recovery): a mistake, said at start-up. */
function readUrlProblem({ DATABASE_URL, DATABASE_READ_URLS }: z.infer<typeof configSchema>): string[] {
  const index = DATABASE_URL === undefined ? -1 : DATABASE_READ_URLS.indexOf(DATABASE_URL);
  return index < 0 ? [] : [`  DATABASE_READ_URLS: entry ${index + 1} is DATABASE_URL itself: list the primary's streaming replicas`];
}

/** A purge target named without its credentials (or credentials for no target) is a mistake, said at start-up. */
function purgeCredentialProblems(config: z.infer<typeof configSchema>): string[] {
  const pairs = [
    [
      'EDGE_PURGE_FASTLY_SERVICE_ID',
      config.EDGE_PURGE_FASTLY_SERVICE_ID,
      'EDGE_PURGE_FASTLY_API_TOKEN',
      config.EDGE_PURGE_FASTLY_API_TOKEN,
    ],
    [
      'EDGE_PURGE_CLOUDFLARE_ZONE_ID',
      config.EDGE_PURGE_CLOUDFLARE_ZONE_ID,
      'EDGE_PURGE_CLOUDFLARE_API_TOKEN',
      config.EDGE_PURGE_CLOUDFLARE_API_TOKEN,
    ],
  ] as const;
  return pairs.flatMap(([idName, id, tokenName, token]) =>
    id && !token
      ? [`  ${tokenName}: required with ${idName} (purges would be refused)`]
      : !id && token
        ? [`  ${idName}: required with ${tokenName} (which one to purge?)`]
        : [],
  );
}

/**
 * A purge target whose shared cache is sent no tags to purge by is a mistake: every purge would
 * match nothing, and readers through it would see a changed answer for up to `s-maxage`. Fastly
 * reads only the space-separated header, Cloudflare only the comma-separated one; a Varnish VCL
 * may read either.
 */
function tagHeaderProblems(config: z.infer<typeof configSchema>): string[] {
  const spaceSeparated = config.EDGE_SURROGATE_KEY_HEADER !== undefined;
  const commaSeparated = cacheTagHeader(config) !== undefined;
  const problems: string[] = [];
  if (config.EDGE_PURGE_FASTLY_SERVICE_ID && !spaceSeparated) {
    problems.push('  EDGE_SURROGATE_KEY_HEADER: none, but Fastly (EDGE_PURGE_FASTLY_SERVICE_ID) purges by it: it would purge nothing');
  }
  if (config.EDGE_PURGE_CLOUDFLARE_ZONE_ID && !commaSeparated) {
    problems.push('  EDGE_CACHE_TAG_HEADER: none, but Cloudflare (EDGE_PURGE_CLOUDFLARE_ZONE_ID) purges by it: it would purge nothing');
  }
  if (config.EDGE_PURGE_VARNISH_URLS.length > 0 && !spaceSeparated && !commaSeparated) {
    problems.push(
      '  EDGE_SURROGATE_KEY_HEADER: none and no EDGE_CACHE_TAG_HEADER, but Varnish (EDGE_PURGE_VARNISH_URLS) is purged by tags: it would purge nothing',
    );
  }
  return problems;
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
    ? [
        ...metricsPortProblem(parsed.data),
        ...cacheHeapProblem(parsed.data, heapLimitBytes),
        ...timeoutProblem(parsed.data),
        ...readUrlProblem(parsed.data),
        ...purgeCredentialProblems(parsed.data),
        ...tagHeaderProblems(parsed.data),
        ...(parsed.data.RATE_LIMIT_ENABLED ? costBudgetProblems(parsed.data) : []),
      ]
    : parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  if (parsed.success && parsed.data.REDIS_URL && parsed.data.REDIS_SENTINELS.length > 0) {
    problems.push('  REDIS_SENTINELS: set REDIS_URL or REDIS_SENTINELS, not both');
  }
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(`invalid gateway configuration:\n${problems.join('\n')}`);
  }
  const development = env.NODE_ENV !== 'production';
  return {
    ...parsed.data,
    GRAPHQL_INTROSPECTION: parsed.data.GRAPHQL_INTROSPECTION ?? development,
    GRAPHQL_IDE: parsed.data.GRAPHQL_IDE ?? development,
    EDGE_CACHE_TAG_HEADER: cacheTagHeader(parsed.data),
  };
}
