import { z } from 'zod';

const integer = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const configSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: integer(0, 65535, 4000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WRITE_TOKEN: z.string().min(8, 'must be at least 8 characters').optional(),
  CACHE_TTL_SECONDS: integer(0, 86_400, 300),
  CACHE_MAX_ENTRIES: integer(1, 10_000_000, 100_000),
  CACHE_MAX_BYTES: integer(1_024, 64 * 1024 ** 3, 128 * 1024 ** 2),
  REDIS_COMMAND_TIMEOUT_MS: integer(10, 10_000, 200),
  DB_POOL_MAX: integer(1, 1_000, 20),
  DB_POOL_ACQUIRE_TIMEOUT_MS: integer(1, 60_000, 1_000),
  DB_QUEUE_MAX: integer(0, 100_000, 100),
  DB_QUEUE_MAX_WAIT_MS: integer(1, 60_000, 500),
  DB_STATEMENT_TIMEOUT_MS: integer(1, 600_000, 2_000),
  GRAPHQL_MAX_DEPTH: integer(1, 100, 8),
  GRAPHQL_MAX_COMPLEXITY: integer(1, 1_000_000, 1_000),
  GRAPHQL_INTROSPECTION: z.enum(['true', 'false']).transform((value) => value === 'true').optional(),
  BODY_LIMIT_BYTES: integer(1_024, 100 * 1024 * 1024, 65_536),
  SHUTDOWN_GRACE_MS: integer(0, 600_000, 10_000),
  EMBEDDED_DATA_DIR: z.string().min(1).optional(),
});

/** Unset GRAPHQL_INTROSPECTION: on in development, off when NODE_ENV=production. */
export type Config = Omit<z.infer<typeof configSchema>, 'GRAPHQL_INTROSPECTION'> & { GRAPHQL_INTROSPECTION: boolean };

/** Thrown with every invalid variable listed, so one start-up attempt shows them all. */
export class ConfigError extends Error {}

/** Reads and validates the gateway's settings; empty variables count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid gateway configuration:\n${problems.join('\n')}`);
  }
  return { ...parsed.data, GRAPHQL_INTROSPECTION: parsed.data.GRAPHQL_INTROSPECTION ?? env.NODE_ENV !== 'production' };
}
