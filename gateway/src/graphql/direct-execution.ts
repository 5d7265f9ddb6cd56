import type { DocumentNode, ExecutionResult, OperationDefinitionNode } from 'graphql';
import type { GraphQLContext } from './context.js';
import type { JitExecutor } from './jit-executor.js';
import type { ComplexityLimit } from './plugins/complexity-limit.js';
import { isRecord, wellFormedRequest, type GraphQLParams } from './request-shape.js';
import { singleResultMediaType } from './response-media-type.js';

/** A request run here: its JSON body, or (when it produced errors) its execution for Apollo to answer. */
export type DirectOutcome = { body: string } | { execution: Promise<ExecutionResult> };

export interface DirectRequest {
  /** The request as Apollo would be given it (a POST body). */
  params: GraphQLParams;
  document: DocumentNode | undefined;
  /** Whether the document cache validated `document`. */
  valid: boolean;
  operation: OperationDefinitionNode | undefined;
  operationName: string | undefined;
  accept: string | undefined;
  context: GraphQLContext;
}

/**
 * Runs a query or mutation without Apollo's request pipeline when that pipeline would do nothing
 * but run it and answer `{"data": …}`: a valid document the document cache knows, its operation
 * found, a well-formed request, an Accept header Apollo answers JSON to, and a cost within the
 * limit. Per request that pipeline costs about as much CPU as executing a storefront page
 * (plugin hooks, a SHA-256 of the query, header copies, media-type negotiation, promises).
 *
 * Anything else, and every execution that produced errors, is Apollo's to answer as before: a
 * request that is not eligible goes to Apollo untouched; an execution with errors is handed to it
 * (context.execution), so its plugins and error formatting give the very same response without
 * running the operation a second time. The body is Apollo's serialisation byte for byte.
 */
export class DirectExecution {
  constructor(
    private readonly executor: JitExecutor,
    private readonly complexity: ComplexityLimit,
  ) {}

  /** The outcome, or undefined when Apollo must handle the request from the start. */
  async run({ params, document, valid, operation, operationName, accept, context }: DirectRequest): Promise<DirectOutcome | undefined> {
    if (!document || !valid || !operation || !this.wellFormed(params) || singleResultMediaType(accept) === undefined) return undefined;
    const variables = isRecord(params.variables) ? params.variables : undefined;
    // Over the limit: Apollo's cost check answers it, before anything runs.
    if (this.complexity.check(document, operationName, variables ?? {})) return undefined;
    const execution = this.executor.execute(document, operation, operationName, variables, context);
    let result: ExecutionResult;
    try {
      result = await execution;
    } catch {
      return { execution };
    }
    if (result.errors?.length) return { execution };
    // Apollo's default stringifyResult of { errors, data, extensions }, the errors being none.
    return { body: `${JSON.stringify({ data: result.data, extensions: result.extensions })}\n` };
  }

  /**
   * A request Apollo runs as it is: an object (a JSON body; Apollo's CSRF check passes for JSON
   * content types) whose query is text, operationName text if given, variables and extensions
   * objects if given, and no persisted-query extension left (the gateway resolves those first).
   */
  private wellFormed(params: GraphQLParams): boolean {
    return wellFormedRequest(params) && !(params.extensions as { persistedQuery?: unknown } | null | undefined)?.persistedQuery;
  }
}
