import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { parseQueryString } from '../http/query-string.js';
import type { GraphqlOperationRef } from '../pipeline/cache-lookup.js';
import type { CachedGraphqlAnswers } from '../pipeline/front-door.js';
import type { RequestRecord } from '../pipeline/request-record.js';
import { createRequestScope, type Services } from '../services.js';
import { parametersOfGet } from './get-parameters.js';
import type { OperationMetrics } from './operation-metrics.js';
import type { OperationRunner } from './operation-runner.js';
import type { PersistedQueries } from './persisted-queries.js';

/**
 * The GraphQL GETs the front door answered from the cache, accounted for as the route accounts
 * for its own: counted in the operation metrics, and, when the user registered plugins, shown to
 * them as a cached answer by the operation runner once the client has it. Without user plugins
 * nothing could observe that, so the hit costs a metric and no more.
 */
export class GraphqlEdgeAnswers implements CachedGraphqlAnswers {
  constructor(
    private readonly services: Services,
    private readonly persistedQueries: PersistedQueries,
    private readonly runner: OperationRunner,
    private readonly operationMetrics: OperationMetrics,
    /** Whether the user registered plugins. */
    private readonly observed: boolean,
    private readonly log: FastifyBaseLogger,
  ) {}

  answered(record: RequestRecord, request: IncomingMessage, { operation }: GraphqlOperationRef, body: string): void {
    this.operationMetrics.record(operation, 'success', (performance.now() - record.started) / 1_000);
    if (!this.observed) return;
    const log = this.log.child({ reqId: record.id });
    this.showPlugins(record, request, body, log).catch((error: unknown) =>
      log.error({ err: error }, 'GraphQL plugins failed on an answer from the cache'),
    );
  }

  private async showPlugins(record: RequestRecord, request: IncomingMessage, body: string, log: FastifyBaseLogger): Promise<void> {
    const url = request.url!;
    const resolved = await this.persistedQueries.resolve(parametersOfGet(parseQueryString(url.slice(url.indexOf('?') + 1))));
    if ('refused' in resolved) return;
    const scope = createRequestScope(this.services);
    const context = { services: this.services, scope, authorization: request.headers.authorization, log, record };
    await this.runner.run({ request, operation: resolved, context, cached: body });
  }
}
