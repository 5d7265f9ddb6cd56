import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { QueuedEdgePurger } from './edge-purger.js';
import { PurgeQueue, type PurgeQueueReports } from './purge-queue.js';
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

/** A purger of `targets` (purgeTargetsOf), its queues reporting into `reports`; with no target it purges nothing. */
export function createEdgePurger(
  config: Config,
  targets: readonly PurgeTarget[],
  reports: PurgeQueueReports,
  logger: Logger,
): QueuedEdgePurger {
  const queues = targets.map(
    (target) =>
      new PurgeQueue(target, { maxTags: config.EDGE_PURGE_QUEUE_MAX_TAGS, timeoutMs: config.EDGE_PURGE_TIMEOUT_MS, reports, logger }),
  );
  const purger = new QueuedEdgePurger(queues);
  if (purger.purging) logger.info({ targets: queues.map((queue) => queue.target.name) }, 'shared caches purged on every change');
  return purger;
}
