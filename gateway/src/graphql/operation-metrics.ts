import type { OperationDefinitionNode } from 'graphql';
import type { Metrics } from '../metrics/metrics.js';

/**
 * Counts and times one GraphQL request by the operation it asked for: executed, answered from
 * the response cache, or refused. The route records every request here, and nothing else does.
 */
export function recordOperation(
  metrics: Metrics,
  operationName: string | undefined,
  operation: OperationDefinitionNode | undefined,
  outcome: 'success' | 'error',
  seconds: number,
): void {
  const labels = {
    operation_name: operationName ?? operation?.name?.value ?? 'anonymous',
    operation_type: operation?.operation ?? 'unknown',
  };
  metrics.graphqlOperations.inc({ ...labels, outcome });
  metrics.graphqlDuration.observe(labels, seconds);
}
