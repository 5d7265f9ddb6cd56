/**
 * `npm run config-docs`: writes every copy of the gateway's configuration contract from its one
 * definition (gateway/src/config.ts: the zod schema and CONFIG_DOCS): the chart's `gateway.config`
 * values and their JSON schema (so `helm install` refuses what the gateway refuses), the chart
 * README rows, and the configuration tables of the root and gateway READMEs.
 * charts/test/config-contract.test.ts fails when a written copy is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { CONFIG_DOCS, configSchema } from '../gateway/src/config.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type EnvName = keyof typeof CONFIG_DOCS;

/** Variables the chart sets from other values (or never needs). */
const NOT_CHART_CONFIG: Partial<Record<EnvName, string>> = {
  DATABASE_URL: 'postgresql / externalDatabase',
  DATABASE_READ_URLS: 'postgresql.readReplicas / externalDatabase.readUrls',
  REDIS_URL: 'redis / externalRedis',
  REDIS_SENTINELS: 'redis.sentinel / externalRedis.sentinels',
  REDIS_SENTINEL_MASTER: 'redis.sentinel / externalRedis.sentinels',
  REDIS_PASSWORD: 'redis.auth / externalRedis (from a Secret)',
  REDIS_SENTINEL_PASSWORD: 'externalRedis (from a Secret)',
  WRITE_TOKEN: 'writeToken / existingWriteTokenSecret',
  GRAPHQL_TRUSTED_DOCUMENTS: 'a path in the pod: the chart has no manifest volume yet',
  OTEL_EXPORTER_OTLP_ENDPOINT: "tracing.otlpEndpoint, or the chart's own Jaeger (tracing.jaeger.enabled)",
  OTEL_SERVICE_NAME: 'tracing.serviceName',
  OTEL_RESOURCE_ATTRIBUTES: "tracing.resourceAttributes, and the pod's identity (downward API)",
  OTEL_TRACES_SAMPLER: 'tracing.sampler',
  OTEL_TRACES_SAMPLER_ARG: 'tracing.samplerArg',
  METRICS_HOST: 'the pod listens on `host` for both ports',
  EDGE_PURGE_FASTLY_API_TOKEN: 'gateway.edgePurge.existingFastlyTokenSecret (a Secret only)',
  EDGE_PURGE_CLOUDFLARE_API_TOKEN: 'gateway.edgePurge.existingCloudflareTokenSecret (a Secret only)',
};

/** Where the chart's default differs from the gateway's, and why. */
const CHART_DEFAULTS: Partial<Record<EnvName, { value: string | number | boolean; why: string }>> = {
  HOST: { value: '0.0.0.0', why: 'so the Service and probes reach the pod' },
  GRAPHQL_INTROSPECTION: { value: false, why: 'a public endpoint need not publish its schema; turn on for GraphQL IDEs and codegen' },
  GRAPHQL_IDE: { value: false, why: 'the IDE is a development tool; it needs GRAPHQL_INTROSPECTION on to load the schema' },
};

/** Chart-specific advice shown with a value. */
const CHART_NOTES: Partial<Record<EnvName, string>> = {
  PORT: 'Also the container port; the Service targets it by name.',
  METRICS_PORT: 'Also the container port named `metrics`, the one Prometheus scrapes.',
  CACHE_MAX_BYTES:
    'At most half of the V8 heap Node sizes from gateway.resources.limits.memory (560 MiB in 1Gi), or the gateway refuses to start.',
  DB_POOL_MAX: "Keep maxReplicas × (this + 3) below postgresql.maxConnections, and below each read replica's max_connections.",
  SHUTDOWN_GRACE_MS: 'terminationGracePeriodSeconds is derived from it (plus preStopSleepSeconds and a margin).',
};

interface JsonProperty {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  enum?: string[];
  default?: unknown;
  minLength?: number;
  format?: string;
}

/** JSON schema of each variable as the gateway validates it (bounds, enums, defaults). */
function gatewayProperties(): Record<EnvName, JsonProperty> {
  const schema = zodToJsonSchema(configSchema, { target: 'jsonSchema7', $refStrategy: 'none' }) as {
    properties: Record<EnvName, JsonProperty>;
  };
  return schema.properties;
}

/** cacheTtlSeconds → CACHE_TTL_SECONDS is how the ConfigMap names the variable; this is the inverse. */
export const chartKey = (env: string): string => env.toLowerCase().replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

const isBooleanSwitch = (property: JsonProperty) =>
  property.enum?.length === 2 && property.enum.includes('true') && property.enum.includes('false');

export interface ChartSetting {
  env: EnvName;
  key: string;
  value: string | number | boolean;
  description: string;
  schema: Record<string, unknown>;
}

/** The chart's `gateway.config` values, in definition order. */
export function chartSettings(): ChartSetting[] {
  const properties = gatewayProperties();
  return (Object.keys(CONFIG_DOCS) as EnvName[])
    .filter((env) => !(env in NOT_CHART_CONFIG))
    .map((env) => {
      const property = properties[env];
      const override = CHART_DEFAULTS[env];
      const gatewayDefault = property.default as string | number | undefined;
      // Text with no default is for the gateway to choose when unset: the chart leaves it empty.
      const chosenWhenUnset = gatewayDefault === undefined && !isBooleanSwitch(property) && property.type === 'string' && !property.enum;
      const value =
        override?.value ??
        (isBooleanSwitch(property) ? gatewayDefault === 'true' : chosenWhenUnset ? '' : (gatewayDefault as string | number));
      const schema: Record<string, unknown> = isBooleanSwitch(property)
        ? { type: 'boolean' }
        : property.enum
          ? { type: 'string', enum: property.enum }
          : property.type === 'integer'
            ? { type: 'integer', minimum: property.minimum, maximum: property.maximum }
            : { type: 'string', minLength: chosenWhenUnset ? 0 : (property.minLength ?? 1) };
      const description = [
        `${env}: ${CONFIG_DOCS[env].description}.`,
        override ? `The chart sets ${JSON.stringify(value)}: ${override.why}.` : '',
        CHART_NOTES[env] ?? '',
      ]
        .filter(Boolean)
        .join(' ');
      return { env, key: chartKey(env), value, description, schema: { ...schema, description } };
    });
}

const markdownDefault = (env: EnvName, property: JsonProperty): string =>
  CONFIG_DOCS[env].defaultText ?? (property.default === undefined ? '–' : `\`${String(property.default)}\``);

function readmeTable(): string {
  const properties = gatewayProperties();
  const rows = (Object.keys(CONFIG_DOCS) as EnvName[]).map(
    (env) => `| \`${env}\` | ${markdownDefault(env, properties[env])} | ${CONFIG_DOCS[env].description} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

const wrap = (text: string, width: number, indent: string): string[] => {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && `${indent}${line} ${word}`.length > width) {
      lines.push(`${indent}${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`${indent}${line}`);
  return lines;
};

const yamlScalar = (value: string | number | boolean) => (typeof value === 'string' ? JSON.stringify(value) : String(value));

function valuesBlock(): string {
  return chartSettings()
    .flatMap(({ key, value, description }) => [...wrap(`-- ${description}`, 100, '    # '), `    ${key}: ${yamlScalar(value)}`])
    .join('\n');
}

const chartReadmeRows = (): string =>
  chartSettings()
    .map(({ key, value, description }) => `| \`gateway.config.${key}\` | \`${JSON.stringify(value)}\` | ${description} |`)
    .join('\n');

/** Replaces the lines after `marker` that are indented at least like it (the rest of its YAML map). */
function blockAfter(text: string, marker: string, body: string, file: string): string {
  const start = text.indexOf(marker);
  if (start < 0) throw new Error(`${file}: marker "${marker}" not found`);
  const indent = marker.length - marker.trimStart().length;
  let end = start + marker.length + 1;
  while (text.startsWith(' '.repeat(indent), end)) end = text.indexOf('\n', end) + 1;
  return `${text.slice(0, start + marker.length)}\n${body}\n${text.slice(end)}`;
}

/** Replaces the markdown table right after `marker`. */
function tableAfter(text: string, marker: string, table: string, file: string): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file}: marker "${marker}" not found`);
  const tableStart = text.indexOf('\n|', at) + 1;
  let tableEnd = tableStart;
  while (text.startsWith('|', tableEnd)) tableEnd = text.indexOf('\n', tableEnd) + 1;
  return `${text.slice(0, tableStart)}${table}\n${text.slice(tableEnd)}`;
}

/** Replaces the contiguous rows of `gateway.config.*` keys in the chart README's values table. */
function chartRows(text: string, file: string): string {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('| `gateway.config.'));
  if (first < 0) throw new Error(`${file}: no gateway.config rows`);
  let last = first;
  while (lines[last + 1]?.startsWith('| `gateway.config.')) last += 1;
  lines.splice(first, last - first + 1, chartReadmeRows());
  return lines.join('\n');
}

function valuesSchema(text: string): string {
  const schema = JSON.parse(text) as { properties: { gateway: { properties: { config: { properties: object; required: string[] } } } } };
  const config = schema.properties.gateway.properties.config;
  config.properties = Object.fromEntries(chartSettings().map(({ key, schema: property }) => [key, property]));
  config.required = chartSettings().map(({ key }) => key);
  return `${JSON.stringify(schema, null, 2)}\n`;
}

const README_MARKER = '<!-- configuration table: generated from gateway/src/config.ts by `npm run config-docs` -->';
const VALUES_MARKER = '    # generated from gateway/src/config.ts by `npm run config-docs`';

/** Every file of the contract, as it should read: path → content. */
export function renderContract(): Map<string, string> {
  const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
  const files = new Map<string, string>();
  const put = (path: string, render: (text: string, file: string) => string) => files.set(path, render(read(path), path));
  put('charts/catalog-gateway/values.yaml', (text, file) => blockAfter(text, VALUES_MARKER, valuesBlock(), file));
  put('charts/catalog-gateway/values.schema.json', (text) => valuesSchema(text));
  put('charts/catalog-gateway/README.md', (text, file) => chartRows(text, file));
  put('README.md', (text, file) => tableAfter(text, README_MARKER, readmeTable(), file));
  put('gateway/README.md', (text, file) => tableAfter(text, README_MARKER, readmeTable(), file));
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [path, content] of renderContract()) writeFileSync(join(ROOT, path), content);
  console.log(`configuration contract written to ${[...renderContract().keys()].join(', ')}`);
}
