import { SpanStatusCode, context, trace, type Tracer } from '@opentelemetry/api';
import type { ExecutionResult, OperationDefinitionNode } from 'graphql';
import { ATTR_GRAPHQL_OPERATION_NAME, ATTR_GRAPHQL_OPERATION_TYPE } from './request-spans.js';
import { activeTracer, requestSpan } from './tracing.js';

/** Named as the graphql instrumentation names graphql-js's execution, which graphql-jit replaces. */
export const GRAPHQL_EXECUTE_SPAN = 'graphql.execute';

/**
 * Runs `execute` (a graphql-jit execution: the graphql instrumentation sees only graphql-js's
 * `execute`, which the gateway does not call) under a `graphql.execute` span in a traced request,
 * so the DataLoader batches and SQL it causes are its children. Untraced, it is the call itself.
 */
export function traceGraphqlExecution(operation: OperationDefinitionNode, execute: Execution): Promise<ExecutionResult> | ExecutionResult {
  const tracer = activeTracer();
  return tracer && requestSpan() ? executeInSpan(tracer, operation, execute) : execute();
}

type Execution = () => Promise<ExecutionResult> | ExecutionResult;

async function executeInSpan(tracer: Tracer, operation: OperationDefinitionNode, execute: Execution): Promise<ExecutionResult> {
  const span = tracer.startSpan(GRAPHQL_EXECUTE_SPAN, {
    attributes: {
      [ATTR_GRAPHQL_OPERATION_NAME]: operation.name?.value,
      [ATTR_GRAPHQL_OPERATION_TYPE]: operation.operation,
    },
  });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), execute);
    if (result.errors?.length) span.setStatus({ code: SpanStatusCode.ERROR, message: result.errors[0]!.message });
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
