import type { ApolloServerPlugin } from '@apollo/server';
import type { Metrics } from '../metrics/metrics.js';
import type { GraphQLContext } from './context.js';

export interface OperationLabels {
  operation_name: string;
  operation_type: string;
}

export function recordOperation(metrics: Metrics, labels: OperationLabels, outcome: 'success' | 'error', seconds: number): void {
  metrics.graphqlOperations.inc({ ...labels, outcome });
  metrics.graphqlDuration.observe(labels, seconds);
}

/** Counts and times every operation Apollo executes (cache hits are recorded by the route). */
export function metricsPlugin(metrics: Metrics): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request }) {
      const started = performance.now();
      return {
        async willSendResponse({ operation, errors }) {
          const labels = {
            operation_name: request.operationName ?? operation?.name?.value ?? 'anonymous',
            operation_type: operation?.operation ?? 'unknown',
          };
          recordOperation(metrics, labels, errors?.length ? 'error' : 'success', (performance.now() - started) / 1_000);
        },
      };
    },
  };
}
