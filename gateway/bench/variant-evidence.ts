import { scrapeMetrics, type HasMetricsUrl } from '../../scripts/test/metrics.js';
import { waitFor } from '../../scripts/test/wait.js';

/**
 * What shows a variant ran as it says, from the gateway's own metrics and its trace backend: a
 * variant that silently fell back to its defaults (no replica in the rotation, no trace sent)
 * would measure nothing.
 */

/** Every sample of the counter or gauge `name`, keyed by its labels as written (`target="primary"`). */
async function samples(gateway: HasMetricsUrl, name: string): Promise<Map<string, number>> {
  const pattern = new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`);
  const found = new Map<string, number>();
  for (const line of (await scrapeMetrics(gateway)).split('\n')) {
    const match = pattern.exec(line);
    if (match) found.set(match[1] ?? '', Number(match[2]));
  }
  return found;
}

const total = (values: Map<string, number>) => [...values.values()].reduce((sum, value) => sum + value, 0);

/** Waits until the gateway sends reads to its first replica (it joins once its polls say it is in step). */
export async function waitForReplicaInRotation(gateway: HasMetricsUrl): Promise<void> {
  await waitFor(
    'the read replica to join the gateway rotation',
    async () => (await samples(gateway, 'catalog_db_in_rotation')).get('target="replica-1"') === 1 || undefined,
    30_000,
    200,
  );
}

/** Statements by database target and reads sent to the primary instead of the replica, by reason. */
export interface ReplicaReadCounts {
  statements: Record<string, number>;
  fallbacks: Record<string, number>;
}

export async function readReplicaReadCounts(gateway: HasMetricsUrl): Promise<ReplicaReadCounts> {
  const byLabel = (values: Map<string, number>, label: string) =>
    Object.fromEntries([...values].map(([labels, value]) => [new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1] ?? labels, value]));
  return {
    statements: byLabel(await samples(gateway, 'catalog_db_statements_total'), 'target'),
    fallbacks: byLabel(await samples(gateway, 'catalog_db_replica_fallbacks_total'), 'reason'),
  };
}

/** How many requests the gateways answered, and how many of their traces Jaeger holds (they are its only source). */
export async function tracedShare(
  gateways: readonly HasMetricsUrl[],
  jaegerQueryUrl: string,
  sinceMs: number,
): Promise<{ requests: number; traces: number }> {
  let requests = 0;
  for (const gateway of gateways) requests += total(await samples(gateway, 'catalog_http_requests_total'));
  const query = new URLSearchParams({
    service: 'catalog-gateway',
    start: String(sinceMs * 1_000),
    end: String(Date.now() * 1_000),
    // Jaeger searches at most what its store holds (scripts/test/jaeger.ts keeps 100,000 traces).
    limit: '99999',
  });
  const response = await fetch(`${jaegerQueryUrl}/api/traces?${query}`);
  const body = (await response.json()) as { data?: unknown[] };
  if (!response.ok) throw new Error(`Jaeger /api/traces answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return { requests, traces: body.data?.length ?? 0 };
}

/** What a gateway's coherence lease did while the run went on. */
export interface LeaseRecord {
  /** Reads of `catalog_coherence_lease_held`, and how many found it not held. */
  samples: number;
  lapsed: number;
  /** `catalog_coherence_resets_total` and `catalog_cache_errors_total` at the end, by labels. */
  resets: Record<string, number>;
  cacheErrors: Record<string, number>;
}

/**
 * Reads the lease gauge every `everyMs` (rarely enough that the scrapes cost the gateway nothing
 * measurable) until `stop()`: without its lease a gateway reads on the primary and counts no
 * fallback, so lapses are what explain reads on the primary beside a replica in rotation.
 */
export function sampleLease(gateway: HasMetricsUrl, everyMs = 1_000): { stop(): Promise<LeaseRecord> } {
  let [taken, lapsed] = [0, 0];
  const timer = setInterval(() => {
    samples(gateway, 'catalog_coherence_lease_held').then(
      (values) => {
        taken += 1;
        if (values.get('') === 0) lapsed += 1;
      },
      () => undefined,
    );
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      const labelled = async (name: string) => Object.fromEntries(await samples(gateway, name));
      return {
        samples: taken,
        lapsed,
        resets: await labelled('catalog_coherence_resets_total'),
        cacheErrors: await labelled('catalog_cache_errors_total'),
      };
    },
  };
}
