import { z } from 'zod';
import { parseNetwork, type Network } from './ip-networks.js';

/** How a client made itself known: a listed key in the API-key header, a listed bearer token, or only its address. */
export const CLIENT_CLASSES = ['api-key', 'bearer', 'ip'] as const;
export type ClientClass = (typeof CLIENT_CLASSES)[number];

const quota = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** What a client's or class's entry may set; anything unset comes from the class, then the defaults. */
const limitFields = {
  /** Requests per window. */
  requests: quota.optional(),
  /** GraphQL cost per window. */
  graphqlCost: quota.optional(),
  /** No limit at all (internal clients): never refused, not counted, no RateLimit headers. */
  exempt: z.boolean().optional(),
};

const limitsObject = z.object(limitFields).strict();

type Limits = z.infer<typeof limitsObject>;
const EXEMPT_HAS_NO_LIMITS = 'an exempt entry has no limits: drop requests/graphqlCost, or exempt';
const exemptHasNoLimits = (entry: Limits): boolean => !(entry.exempt && (entry.requests !== undefined || entry.graphqlCost !== undefined));

const limitsEntry = limitsObject.refine(exemptHasNoLimits, EXEMPT_HAS_NO_LIMITS);

const clientEntry = limitsObject
  .extend({
    /** SHA-256 of the key (hex), so the configuration holds no secret: `printf %s "$KEY" | sha256sum`. */
    keySha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be the 64 hex digits of the key\'s SHA-256 (printf %s "$KEY" | sha256sum)')
      .transform((hex) => hex.toLowerCase()),
  })
  .refine(exemptHasNoLimits, EXEMPT_HAS_NO_LIMITS);

/** Client names become metric label values: short and plain, and there are only as many as listed. */
const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const clientsDocument = z
  .object({
    clients: z.record(z.string().regex(CLIENT_NAME, 'client names are 1-64 letters, digits, ".", "_" or "-"'), clientEntry).default({}),
    classes: z
      .object(Object.fromEntries(CLIENT_CLASSES.map((name) => [name, limitsEntry.optional()])))
      .strict()
      .default({}),
  })
  .strict();

export type LimitsEntry = z.infer<typeof limitsEntry>;
export type ClientEntry = z.infer<typeof clientEntry>;
export interface ClientsConfig {
  clients: Record<string, ClientEntry>;
  classes: Partial<Record<ClientClass, LimitsEntry>>;
}

/**
 * RATE_LIMIT_CLIENTS: JSON naming the known clients (by their key's SHA-256) and the limits of
 * clients and classes that differ from the defaults. Every problem is reported with its path.
 */
export function parseClientsConfig(text: string, context: z.RefinementCtx): ClientsConfig {
  if (text.trim() === '') return { clients: {}, classes: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: `not JSON: ${(error as Error).message}` });
    return z.NEVER;
  }
  const parsed = clientsDocument.safeParse(json);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(document)'}: ${issue.message}`)),
    ...sharedKeys(json),
  ];
  for (const message of problems) context.addIssue({ code: z.ZodIssueCode.custom, message });
  return problems.length > 0 ? z.NEVER : (parsed.data as ClientsConfig);
}

/** Two clients listed with one key (which would it be?), found even when other entries have problems. */
function sharedKeys(json: unknown): string[] {
  const clients = (json as { clients?: unknown } | null)?.clients;
  if (typeof clients !== 'object' || clients === null) return [];
  const namesByKey = new Map<string, string>();
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(clients)) {
    const key = (entry as { keySha256?: unknown } | null)?.keySha256;
    if (typeof key !== 'string') continue;
    const other = namesByKey.get(key.toLowerCase());
    if (other !== undefined) problems.push(`clients.${name}.keySha256: the same key as "${other}"`);
    else namesByKey.set(key.toLowerCase(), name);
  }
  return problems;
}

/** RATE_LIMIT_TRUSTED_PROXIES: comma-separated addresses or CIDR blocks, IPv4 or IPv6. */
export function parseNetworks(list: string, context: z.RefinementCtx): Network[] {
  const networks: Network[] = [];
  for (const item of list.split(',').map((part) => part.trim())) {
    if (!item) continue;
    const network = parseNetwork(item);
    if (typeof network === 'string') context.addIssue({ code: z.ZodIssueCode.custom, message: network });
    else networks.push(network);
  }
  return networks;
}

/**
 * Problems between settings: a GraphQL cost budget below the cost one operation may have would
 * refuse operations the complexity limit lets through, every window, forever.
 */
export function costBudgetProblems(settings: {
  RATE_LIMIT_CLIENTS: ClientsConfig;
  RATE_LIMIT_GRAPHQL_COST: number;
  GRAPHQL_MAX_COMPLEXITY: number;
}): string[] {
  const { RATE_LIMIT_CLIENTS: clients, GRAPHQL_MAX_COMPLEXITY: maxComplexity } = settings;
  const problems: string[] = [];
  const check = (where: string, cost: number | undefined) => {
    if (cost !== undefined && cost < maxComplexity) {
      problems.push(`  ${where}: a GraphQL cost budget of ${cost} is below GRAPHQL_MAX_COMPLEXITY (${maxComplexity}): raise it`);
    }
  };
  check('RATE_LIMIT_GRAPHQL_COST', settings.RATE_LIMIT_GRAPHQL_COST);
  for (const [name, entry] of Object.entries(clients.classes)) check(`RATE_LIMIT_CLIENTS: classes.${name}.graphqlCost`, entry?.graphqlCost);
  for (const [name, entry] of Object.entries(clients.clients)) check(`RATE_LIMIT_CLIENTS: clients.${name}.graphqlCost`, entry.graphqlCost);
  return problems;
}
