import { expectSuccess, sendPurge, type PurgeTarget } from '../purge-target.js';

/**
 * Tags per PURGE: a request header of ~128 tags of ~16 characters stays far below Varnish's
 * 8 KiB `http_req_hdr_len`.
 */
const TAGS_PER_REQUEST = 128;

/**
 * A Varnish server with the xkey vmod: `PURGE` with the tags space-separated in `xkey-purge`,
 * which the sample VCL (charts/catalog-gateway/files/varnish/catalog.vcl) hands to
 * `xkey.purge`, a hard purge: a purged object is gone, never served stale in grace.
 */
export class VarnishPurgeTarget implements PurgeTarget {
  readonly name: string;
  readonly maxTagsPerRequest = TAGS_PER_REQUEST;

  constructor(private readonly url: string) {
    this.name = `varnish:${new URL(url).host}`;
  }

  async purge(tags: readonly string[], signal: AbortSignal): Promise<void> {
    const response = await sendPurge(this.name, this.url, { method: 'PURGE', headers: { 'xkey-purge': tags.join(' ') }, signal });
    await expectSuccess(this.name, response);
  }
}
