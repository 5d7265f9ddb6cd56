import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadFallback, ReadTargetCounters, ReadTargets, TargetFailure } from '../db/read-targets.js';

const FALLBACKS: ReadFallback[] = ['none_in_rotation', 'left_rotation', 'replica_failed', 'behind_writes', 'no_lease'];
const FAILURES: TargetFailure[] = ['statement', 'connection', 'poll'];

/**
 * Counters of the database targets (`primary`, `replica-1`, … from the configuration: a bounded
 * label), every series created at 0 so dashboards and alerts see them before the first event.
 */
export function createReadTargetCounters(registry: Registry, targetNames: readonly string[]): ReadTargetCounters {
  const registers = [registry];
  const statements = new Counter({
    name: 'catalog_db_statements_total',
    help: 'SQL statements sent, by database target (primary, replica-1, …); a statement a replica could not serve counts there and again on the primary',
    labelNames: ['target'] as const,
    registers,
  });
  const failures = new Counter({
    name: 'catalog_db_target_failures_total',
    help: 'Failures of a database target that say it is down, unreachable or stalled, by target and by what failed: a statement, an idle pooled connection, a WAL position poll',
    labelNames: ['target', 'operation'] as const,
    registers,
  });
  const fallbacks = new Counter({
    name: 'catalog_db_replica_fallbacks_total',
    help: 'Reads sent to the primary instead of a replica, by reason: none_in_rotation (a request given the primary, per request), left_rotation (a statement whose replica left the rotation after it was picked), replica_failed (a statement re-run on the primary after its replica failed it), behind_writes (a response read again on the primary: its replica had not replayed a write it depends on, or failed it), no_lease (a request made while this process held no coherence lease, per request)',
    labelNames: ['reason'] as const,
    registers,
  });
  const byTarget = new Map(targetNames.map((target) => [target, statements.labels(target)]));
  for (const target of targetNames) for (const operation of FAILURES) failures.labels(target, operation).inc(0);
  for (const reason of FALLBACKS) fallbacks.labels(reason).inc(0);
  return {
    statement: (target) => byTarget.get(target)?.inc(),
    failure: (target, operation) => failures.labels(target, operation).inc(),
    fallback: (reason) => fallbacks.labels(reason).inc(),
  };
}

/** Gauges of the targets' state, read at scrape time. */
export function observeReadTargets(registry: Registry, targets: ReadTargets, maxLagMs: number): void {
  const registers = [registry];
  new Gauge({
    name: 'catalog_db_replay_lag_seconds',
    help: 'How long ago the primary was at the position the target has replayed to (0: it has everything the primary wrote; the primary is always 0)',
    labelNames: ['target'] as const,
    registers,
    collect() {
      const now = performance.now();
      this.set({ target: targets.primary.name }, 0);
      for (const replica of targets.replicas) {
        const lagMs = replica.health.lagMs(now);
        if (lagMs !== undefined) this.set({ target: replica.name }, lagMs / 1_000);
      }
    },
  });
  new Gauge({
    name: 'catalog_db_replay_lag_bound_seconds',
    help: 'DATABASE_READ_MAX_LAG_MS: a replica lagging more leaves the rotation',
    registers,
    collect() {
      this.set(maxLagMs / 1_000);
    },
  });
  new Gauge({
    name: 'catalog_db_in_rotation',
    help: 'Whether reads that may use a replica are sent to the target: 1 for each replica in the rotation; 1 for the primary when no replica is (or none is configured)',
    labelNames: ['target'] as const,
    registers,
    collect() {
      const now = performance.now();
      let replicasIn = 0;
      for (const replica of targets.replicas) {
        const inRotation = replica.inRotation(now);
        if (inRotation) replicasIn += 1;
        this.set({ target: replica.name }, inRotation ? 1 : 0);
      }
      this.set({ target: targets.primary.name }, replicasIn === 0 ? 1 : 0);
    },
  });
}
