import type { IncomingMessage } from 'node:http';
import type { ApolloServer, GraphQLResponse } from '@apollo/server';
import type { FormattedExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { asGraphQLError, asUserInputError, badRequest, formatErrors, syntaxError, validationError } from './apollo-errors.js';
import type { ComplexityLimit } from './complexity-limit.js';
import type { GraphQLContext } from './context.js';
import { setErrorStatus } from './error-status.js';
import type { JitExecutor } from './jit-executor.js';
import { newOperationContext } from './operation-context.js';
import { unresolvedOperationError } from './operation-guard.js';
import type { PluginHooks, RequestListeners, WritableOperationContext } from './plugin-hooks.js';
import type { ResolvedOperation } from './persisted-queries.js';
import { isRecord } from './request-shape.js';

/** What an operation answered: its status, its headers but the content type (the response writer labels it), and its body. */
export interface OperationAnswer {
  status: number;
  headers: [name: string, value: string][];
  body: string;
  /** Whether the body carries errors: such answers are never cached, and count as failed. */
  failed: boolean;
}

/** One operation to answer. */
export interface OperationRun {
  /** The HTTP request it came in (plugins read its method, headers and query string). */
  request: Pick<IncomingMessage, 'method' | 'headers' | 'url'>;
  operation: ResolvedOperation;
  context: GraphQLContext;
  /** The response cache's answer, when the operation is not to be executed: plugins see it as a cache hit. */
  cached?: string;
}

/**
 * Whether a body the runner serialised carries errors: it writes `errors` first when there are
 * any, as Apollo's HTTP layer does.
 */
export const carriesErrors = (body: string): boolean => body.startsWith('{"errors"');

/** Apollo's serialisation of a result (errors first, a final newline): the same bytes, the same ETags. */
const serialise = ({ errors, data, extensions }: FormattedExecutionResult): string => `${JSON.stringify({ errors, data, extensions })}\n`;

/**
 * Answers one GraphQL operation: the gateway's only way to run one. It is Apollo Server's request
 * pipeline for a single result, taken over by the gateway (README "GraphQL executes one way"):
 * the same stages in the same order, the user's plugins' request hooks called at each (through
 * PluginHooks, only when a plugin listens), the same errors and statuses, on the document the
 * gateway's document cache parsed and validated and the cost the route computed. What the
 * gateway adds to Apollo's stages acts as a plugin registered before the user's would: an
 * unresolvable or too costly operation is refused when the operation is resolved, a cached answer
 * is the answer (as Apollo's response-cache plugin gives one, in responseForOperation), and an
 * error's cause sets the HTTP status before the user's willSendResponse hooks run.
 */
export class OperationRunner {
  constructor(
    private readonly parts: {
      schema: GraphQLSchema;
      executor: JitExecutor;
      complexity: ComplexityLimit;
      hooks: PluginHooks;
      /** Apollo Server, for the logger and cache its plugins expect on every operation. */
      server: Pick<ApolloServer<GraphQLContext>, 'logger' | 'cache'>;
    },
  ) {}

  async run({ request, operation, context: contextValue, cached }: OperationRun): Promise<OperationAnswer> {
    const { schema, server, hooks } = this.parts;
    const context = newOperationContext({ request, operation, contextValue, server, schema });
    let response: GraphQLResponse;
    try {
      response = await this.answer(context, operation, cached);
    } catch (thrown) {
      // A failure of the gateway's own, not of the operation: plugins are told, the route answers 500.
      await hooks.unexpectedErrorProcessingRequest(context, thrown instanceof Error ? thrown : asGraphQLError(thrown));
      throw thrown;
    }
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not supported');
    const headers: [string, string][] = [];
    for (const [name, value] of response.http.headers) if (name !== 'content-type') headers.push([name, value]);
    const body = cached ?? serialise(response.body.singleResult);
    return { status: response.http.status ?? 200, headers, body, failed: response.body.singleResult.errors !== undefined };
  }

  /** Apollo's `processGraphQLRequest`, for one operation the route resolved. */
  private async answer(
    context: WritableOperationContext,
    operation: ResolvedOperation,
    cached: string | undefined,
  ): Promise<GraphQLResponse> {
    // Without a plugin nothing listens: no hook is awaited, each await being a turn of the microtask queue.
    const listeners = this.parts.hooks.observed ? await this.parts.hooks.requestDidStart(context) : undefined;
    const source = context.request.query;
    if (!source) {
      return this.fail(context, listeners, [
        badRequest('GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.'),
      ]);
    }
    context.source = source;
    if (listeners) await listeners.didResolveSource();

    const { document, documentErrors } = operation;
    if (!operation.valid) {
      // The document store of Apollo holds valid documents only: anything else it parses and
      // validates for each request, with those hooks, and answers with what they found.
      const parsingDidEnd = await listeners?.parsingDidStart();
      if (!document) {
        parsingDidEnd?.(documentErrors[0]);
        return this.fail(context, listeners, documentErrors.map(syntaxError));
      }
      parsingDidEnd?.();
      context.document = document;
      const validationDidEnd = await listeners?.validationDidStart();
      validationDidEnd?.(documentErrors);
      return this.fail(context, listeners, documentErrors.map(validationError));
    }
    context.document = document;
    context.operation = operation.operation;
    context.operationName = operation.operation?.name?.value ?? null;

    // The gateway's checks are a didResolveOperation hook of its own, the first: the user's hooks
    // still run (Apollo runs a stage's hooks together), and the gateway's refusal is the answer.
    let refused: GraphQLError | undefined = operation.operation
      ? this.parts.complexity.refusal(context.contextValue.record.cost)
      : unresolvedOperationError(operation.operationName, document!);
    try {
      if (listeners) await listeners.didResolveOperation();
    } catch (thrown) {
      refused ??= asGraphQLError(thrown);
    }
    if (refused) return this.fail(context, listeners, [refused]);

    if (cached !== undefined) {
      context.metrics.responseCacheHit = true;
      context.response.body = { kind: 'single', singleResult: JSON.parse(cached) as FormattedExecutionResult };
    } else {
      const answered = listeners && (await listeners.responseForOperation());
      if (answered) {
        context.response.body = answered.body;
        if (answered.http.status) context.response.http.status = answered.http.status;
        for (const [name, value] of answered.http.headers) context.response.http.headers.set(name, value);
      } else {
        const failed = await this.execute(context, listeners, operation);
        if (failed) return failed;
      }
    }
    await this.willSendResponse(context, listeners);
    return context.response as GraphQLResponse;
  }

  /** Runs the operation: its result on the context, or the response answering an execution that threw. */
  private async execute(
    context: WritableOperationContext,
    listeners: RequestListeners | undefined,
    { document, operation, operationName, params }: ResolvedOperation,
  ): Promise<GraphQLResponse | undefined> {
    const execution = listeners && (await listeners.executionDidStart());
    let result;
    try {
      const variables = isRecord(params.variables) ? params.variables : undefined;
      result = await this.parts.executor.execute(document!, operation!, operationName, variables, context.contextValue);
    } catch (thrown) {
      const error = thrown instanceof Error ? thrown : asGraphQLError(thrown);
      await execution?.executionDidEnd(error);
      return this.fail(context, listeners, [asGraphQLError(error)]);
    }
    const errors = result.errors?.map(asUserInputError);
    if (errors) await this.didEncounterErrors(context, listeners, errors);
    const formatted = errors ? formatErrors(errors, context.response.http) : undefined;
    // A request whose variables do not coerce runs nothing: 400, as graphql-over-http asks.
    if (errors?.length && result.data === undefined && !context.response.http.status) context.response.http.status = 400;
    context.response.body = { kind: 'single', singleResult: { ...result, errors: formatted } };
    if (execution) await execution.executionDidEnd();
    return undefined;
  }

  /** Answers with `errors` alone (Apollo's `sendErrorResponse`): 500 unless one of them names a status. */
  private async fail(
    context: WritableOperationContext,
    listeners: RequestListeners | undefined,
    errors: GraphQLError[],
  ): Promise<GraphQLResponse> {
    await this.didEncounterErrors(context, listeners, errors);
    context.response.body = { kind: 'single', singleResult: { errors: formatErrors(errors, context.response.http) } };
    context.response.http.status ??= 500;
    await this.willSendResponse(context, listeners);
    return context.response as GraphQLResponse;
  }

  private async didEncounterErrors(
    context: WritableOperationContext,
    listeners: RequestListeners | undefined,
    errors: readonly GraphQLError[],
  ) {
    context.errors = errors;
    await listeners?.didEncounterErrors();
  }

  /** The status of what went wrong is set before the user's plugins see the response. */
  private async willSendResponse(context: WritableOperationContext, listeners: RequestListeners | undefined): Promise<void> {
    if (context.errors?.length) setErrorStatus(context.errors, context.response, context.contextValue.log);
    if (listeners) await listeners.willSendResponse();
  }
}
