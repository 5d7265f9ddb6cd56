import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GraphQLError, parse, specifiedRules, validate, type GraphQLSchema, type ValidationRule } from 'graphql';
import { z } from 'zod';
import type { Config } from '../config.js';
import { createSchema } from './schema.js';
import { gatewayValidationRules } from './validation-rules.js';

/** Longest operation id accepted, in a manifest or a request (Apollo's are 64, Relay's 32 characters). */
export const MAX_DOCUMENT_ID_LENGTH = 256;

/** How many problems of a bad manifest are listed (the rest are counted). */
const LISTED_PROBLEMS = 10;

const documentId = z.string().min(1).max(MAX_DOCUMENT_ID_LENGTH);

/** `@apollo/generate-persisted-query-manifest`'s output. */
const apolloManifest = z
  .object({
    format: z.literal('apollo-persisted-query-manifest'),
    version: z.literal(1),
    operations: z
      .array(
        z.object({
          id: documentId,
          body: z.string().min(1),
          name: z.string(),
          type: z.enum(['query', 'mutation', 'subscription']),
        }),
      )
      .min(1, 'lists no operations'),
  })
  .transform(({ operations }) => operations.map(({ id, body, name }) => ({ id, body, name })));

/** Relay's `persisted_queries.json` (persistOutput): `{"<id>": "<query text>"}`. */
const relayManifest = z
  .record(documentId, z.string().min(1))
  .refine((entries) => Object.keys(entries).length > 0, 'lists no operations')
  .transform((entries) => Object.entries(entries).map(([id, body]) => ({ id, body, name: undefined })));

interface ManifestOperation {
  id: string;
  body: string;
  name: string | undefined;
}

/** A trusted-documents manifest that cannot be used; the message names the file and every problem. */
export class TrustedDocumentsError extends Error {
  constructor(path: string, problems: string[]) {
    const listed = problems.slice(0, LISTED_PROBLEMS).map((problem) => `  ${problem}`);
    if (problems.length > LISTED_PROBLEMS) listed.push(`  … and ${problems.length - LISTED_PROBLEMS} more`);
    super(`GRAPHQL_TRUSTED_DOCUMENTS=${path}: unusable trusted-documents manifest:\n${listed.join('\n')}`);
  }
}

/**
 * The operations a trusted-documents manifest allows, by id and by exact text. An id is looked
 * up as the manifest's own id, or as the SHA-256 of a body (what Apollo Client's APQ link sends,
 * bare or as `sha256:<hex>` in a GraphQL-over-HTTP `documentId`).
 */
export class TrustedDocuments {
  private constructor(
    private readonly byId: ReadonlyMap<string, string>,
    private readonly bySha256: ReadonlyMap<string, string>,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** The text of the operation an id names, if the manifest holds it. */
  textOf(id: string): string | undefined {
    return this.byId.get(id) ?? this.bySha256.get(id.startsWith('sha256:') ? id.slice('sha256:'.length) : id);
  }

  /** Whether the manifest holds this exact text. */
  holds(text: string): boolean {
    return this.bySha256.has(hash('sha256', text, 'hex'));
  }

  /**
   * Reads and checks a manifest at start-up: JSON, Apollo's or Relay's format, unique ids, and
   * every operation valid against the schema under the gateway's rules (an operation that can
   * never run is a mistake better found now than by a client).
   */
  static load(path: string, schema: GraphQLSchema, gatewayRules: readonly ValidationRule[]): TrustedDocuments {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new TrustedDocumentsError(path, [`cannot be read: ${(error as Error).message}`]);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new TrustedDocumentsError(path, [`is not JSON: ${(error as Error).message}`]);
    }
    const operations = parseManifest(path, json);
    const rules = [...specifiedRules, ...gatewayRules];
    const problems: string[] = [];
    const byId = new Map<string, string>();
    const bySha256 = new Map<string, string>();
    for (const operation of operations) {
      const label = `operation ${operation.name ? `${JSON.stringify(operation.name)} ` : ''}(id ${operation.id})`;
      if (byId.has(operation.id) && byId.get(operation.id) !== operation.body)
        problems.push(`${label}: the id is listed twice with different bodies`);
      problems.push(...documentProblems(operation.body, schema, rules).map((problem) => `${label}: ${problem}`));
      byId.set(operation.id, operation.body);
      bySha256.set(hash('sha256', operation.body, 'hex'), operation.body);
    }
    if (problems.length > 0) throw new TrustedDocumentsError(path, problems);
    return new TrustedDocuments(byId, bySha256);
  }
}

function parseManifest(path: string, json: unknown): ManifestOperation[] {
  const looksApollo = typeof json === 'object' && json !== null && ('format' in json || 'operations' in json);
  const looksRelay = typeof json === 'object' && json !== null && !Array.isArray(json) && !looksApollo;
  if (!looksApollo && !looksRelay) {
    throw new TrustedDocumentsError(path, [
      'is neither an Apollo persisted-query manifest ({"format":"apollo-persisted-query-manifest","version":1,"operations":[…]}) nor a Relay persisted_queries.json ({"<id>":"<query>"})',
    ]);
  }
  const parsed = looksApollo ? apolloManifest.safeParse(json) : relayManifest.safeParse(json);
  if (parsed.success) return parsed.data;
  const format = looksApollo ? 'Apollo manifest' : 'Relay persisted_queries.json';
  throw new TrustedDocumentsError(
    path,
    parsed.error.issues.map((issue) => `${format}${issue.path.length ? ` at ${issue.path.join('.')}` : ''}: ${issue.message}`),
  );
}

/** Why a manifest body cannot run: its syntax error, or its validation errors. */
function documentProblems(body: string, schema: GraphQLSchema, rules: readonly ValidationRule[]): string[] {
  try {
    return validate(schema, parse(body), rules).map((error) => error.message);
  } catch (error) {
    return [error instanceof GraphQLError ? error.message : String(error)];
  }
}

/**
 * The manifest GRAPHQL_TRUSTED_DOCUMENTS names, checked against the schema and rules the gateway
 * serves with; undefined when unset. Called before anything is opened, so a bad manifest ends
 * the start-up without leaving connections behind.
 */
export function loadTrustedDocuments(config: Config): TrustedDocuments | undefined {
  const path = config.GRAPHQL_TRUSTED_DOCUMENTS;
  if (path === undefined) return undefined;
  const rules = gatewayValidationRules({ maxDepth: config.GRAPHQL_MAX_DEPTH, introspection: config.GRAPHQL_INTROSPECTION });
  return TrustedDocuments.load(path, createSchema(), rules);
}
