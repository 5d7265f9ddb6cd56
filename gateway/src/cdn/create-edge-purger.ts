import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import { QueuedEdgePurger } from './edge-purger.js';
import { PurgeQueue } from './purge-queue.js';
import type { PurgeTarget } from './purge-target.js';
import { CloudflarePurgeTarget } from './targets/cloudflare.js';
import { FastlyPurgeTarget } from './targets/fastly.js';
import { VarnishPurgeTarget } from './targets/varnish.js';

/** The shared caches the configuration names (EDGE_PURGE_*); config.ts refuses an id without its token. */
export function purgeTargetsOf(config: Config): PurgeTarget[] {
  const targets: PurgeTarget[] = config.EDGE_PURGE_VARNISH_URLS.map((url) => new VarnishPurgeTarget(url));
  if (config.EDGE_PURGE_FASTLY_SERVICE_ID && config.EDGE_PURGE_FASTLY_API_TOKEN) {
    targets.push(
      new FastlyPurgeTarget(config.EDGE_PURGE_FASTLY_API_URL, config.EDGE_PURGE_FASTLY_SERVICE_ID, config.EDGE_PURGE_FASTLY_API_TOKEN),
    );
  }
  if (config.EDGE_PURGE_CLOUDFLARE_ZONE_ID && config.EDGE_PURGE_CLOUDFLARE_API_TOKEN) {
    targets.push(
      new CloudflarePurgeTarget(
        config.EDGE_PURGE_CLOUDFLARE_API_URL,
        config.EDGE_PURGE_CLOUDFLARE_ZONE_ID,
        config.EDGE_PURGE_CLOUDFLARE_API_TOKEN,
      ),
    );
  }
  return targets;
}

/** The purger as configured, its queues reporting into `metrics`; with no target it purges nothing. */
export function createEdgePurger(config: Config, metrics: Metrics, logger: Logger): QueuedEdgePurger {
  const reports = {
    depth: (target: string, tags: number) => metrics.edgePurgeQueueTags.set({ target }, tags),
    request: (target: string, result: 'sent' | 'failed') => metrics.edgePurgeRequests.inc({ target, result }),
    latency: (target: string, seconds: number) => metrics.edgePurgeLatency.observe({ target }, seconds),
    overflow: (target: string) => metrics.edgePurgeOverflows.inc({ target }),
  };
  const targets = purgeTargetsOf(config);
  // Series at 0 from the start: the alert on failing purges compares failures with successes.
  for (const { name: target } of targets) {
    for (const result of ['sent', 'failed'] as const) metrics.edgePurgeRequests.inc({ target, result }, 0);
  }
  const queues = targets.map(
    (target) =>
      new PurgeQueue(target, { maxTags: config.EDGE_PURGE_QUEUE_MAX_TAGS, timeoutMs: config.EDGE_PURGE_TIMEOUT_MS, reports, logger }),
  );
  const purger = new QueuedEdgePurger(queues);
  if (purger.purging) logger.info({ targets: queues.map((queue) => queue.target.name) }, 'shared caches purged on every change');
  return purger;
}
