import type { OperationDefinitionNode } from 'graphql';
import { observeDuration, requestExemplar } from '../metrics/exemplars.js';
import type { Metrics } from '../metrics/metrics.js';
import { noteGraphqlOperation } from '../telemetry/request-spans.js';

/**
 * Distinct operation names that get series of their own; operations named after that are counted
 * as "other". Names are the clients' to choose: a label per name would let any client grow the
 * gateway's memory and every scrape without bound.
 */
export const MAX_OPERATION_NAME_LABELS = 100;

type OperationType = OperationDefinitionNode['operation'] | 'unknown';
interface OperationLabels {
  operation_name: string;
  operation_type: OperationType;
}
type Outcome = 'success' | 'error';

/**
 * Counts and times GraphQL requests by the operation they ran: executed, answered from the
 * response cache, or refused. Labelled by the operation's name in the document ("anonymous"
 * without one, "unknown" when no operation was found: the client's operationName text is never
 * a label). The route records every request here, and nothing else does. A traced request's
 * duration carries its trace as exemplar, and its span the operation's own name and type.
 */
export class OperationMetrics {
  /** Label sets made once per name and type, so recording allocates nothing. */
  private readonly labels = new Map<string, { duration: OperationLabels } & Record<Outcome, OperationLabels & { outcome: Outcome }>>();
  private readonly names = new Set<string>();

  constructor(private readonly metrics: Metrics) {}

  record(operation: OperationDefinitionNode | undefined, outcome: Outcome, seconds: number): void {
    const labels = this.labelsOf(
      operation ? this.labelledName(operation.name?.value ?? 'anonymous') : 'unknown',
      operation?.operation ?? 'unknown',
    );
    this.metrics.graphqlOperations.inc(labels[outcome]);
    observeDuration(this.metrics.graphqlDuration, labels.duration, seconds, requestExemplar());
    if (operation) noteGraphqlOperation(operation.name?.value ?? 'anonymous', operation.operation);
  }

  private labelledName(name: string): string {
    if (this.names.has(name)) return name;
    if (this.names.size >= MAX_OPERATION_NAME_LABELS) return 'other';
    this.names.add(name);
    return name;
  }

  private labelsOf(name: string, type: OperationType) {
    const key = `${type} ${name}`;
    let labels = this.labels.get(key);
    if (!labels) {
      const duration = { operation_name: name, operation_type: type };
      labels = { duration, success: { ...duration, outcome: 'success' }, error: { ...duration, outcome: 'error' } };
      this.labels.set(key, labels);
    }
    return labels;
  }
}
