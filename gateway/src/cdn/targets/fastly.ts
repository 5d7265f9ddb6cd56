import { postPurge, type PurgeTarget } from '../purge-target.js';

/** Fastly's documented limit for one batch surrogate-key purge. */
const KEYS_PER_REQUEST = 256;

/**
 * A Fastly service: `POST /service/{id}/purge` with `{"surrogate_keys": [...]}` and the API
 * token in `Fastly-Key`. A hard purge (no `Fastly-Soft-Purge`): a soft one only marks objects
 * stale, and `stale-while-revalidate` would serve them once more.
 */
export class FastlyPurgeTarget implements PurgeTarget {
  readonly name = 'fastly';
  readonly maxTagsPerRequest = KEYS_PER_REQUEST;
  private readonly url: string;

  constructor(
    apiUrl: string,
    serviceId: string,
    private readonly token: string,
  ) {
    this.url = `${apiUrl}/service/${encodeURIComponent(serviceId)}/purge`;
  }

  async purge(tags: readonly string[], signal: AbortSignal): Promise<void> {
    await postPurge(this.name, this.url, { 'fastly-key': this.token }, { surrogate_keys: tags }, signal);
  }
}
