import { postPurge, PurgeFailed, type PurgeTarget } from '../purge-target.js';

/** Cloudflare's limit of tags per purge request (30 on most plans; larger ones allow more, none fewer). */
const TAGS_PER_REQUEST = 30;

/**
 * A Cloudflare zone: `POST /zones/{zone}/purge_cache` with `{"tags": [...]}` and a Bearer API
 * token. Its answer says `"success": false` with errors even under some 200s: that is a failure too.
 */
export class CloudflarePurgeTarget implements PurgeTarget {
  readonly name = 'cloudflare';
  readonly maxTagsPerRequest = TAGS_PER_REQUEST;
  private readonly url: string;

  constructor(
    apiUrl: string,
    zoneId: string,
    private readonly token: string,
  ) {
    this.url = `${apiUrl}/zones/${encodeURIComponent(zoneId)}/purge_cache`;
  }

  async purge(tags: readonly string[], signal: AbortSignal): Promise<void> {
    const { status, body } = await postPurge(this.name, this.url, { authorization: `Bearer ${this.token}` }, { tags }, signal);
    let success: unknown;
    try {
      success = (JSON.parse(body) as { success?: unknown }).success;
    } catch {
      throw new PurgeFailed(`${this.name} answered ${status} with a body that is not JSON`);
    }
    if (success !== true) throw new PurgeFailed(`${this.name} answered ${status} without success: ${body.slice(0, 200)}`);
  }
}
