import { hash } from 'node:crypto';
import type { OutgoingHttpHeader } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import { LRUCache } from 'lru-cache';
import { surrogateKeyHeaders, type SurrogateHeaderNames } from '../cdn/surrogate-keys.js';
import { JSON_CONTENT_TYPE } from '../http/media-types.js';

/**
 * Response headers as a flat [name, value, name, value, …] list: what `writeHead` takes fastest
 * (copying a header object costs ~3 µs more).
 */
export type HeaderList = readonly OutgoingHttpHeader[];

/** The Cache-Control of catalog reads, made once per encoder: for any cache, and for a personalised answer. */
export interface CatalogCacheControls {
  /** Browsers (`max-age`) and shared caches (`s-maxage`, when they are purged) alike. */
  shared: string;
  /** An answer carrying one client's own fields (its RateLimit): browsers only, no shared cache, no surrogate keys. */
  personal: string;
}

/**
 * One encoding of a catalog read. Its headers are listed when a response is written, not kept
 * per entry: two lists per cached body cost more memory than making them costs time. What
 * differs per body besides its ETag, its surrogate-key headers, is made once when it is encoded
 * and shared by its encodings.
 */
export class Representation {
  constructor(
    /** Text for the body as is, bytes for a compressed copy (see RepresentationEncoder.encode). */
    readonly body: string | Buffer,
    /** The body's length in bytes on the wire (UTF-8 for text). */
    readonly byteLength: number,
    readonly etag: string,
    private readonly coding: 'gzip' | 'br' | undefined,
    private readonly cacheControls: CatalogCacheControls,
    /** cdn/surrogate-keys.ts: the tags shared caches are purged by, as [name, value, …]. */
    readonly surrogateKeys: readonly OutgoingHttpHeader[],
  ) {}

  /** The headers of a 304 (RFC 9110 §15.4.5: those a 200 would carry about caching). */
  notModifiedHeaders(personalised = false): OutgoingHttpHeader[] {
    return this.withCachingHeaders([], personalised);
  }

  /** The headers of a 200 carrying these bytes; `personalised`: for one client only (see CatalogCacheControls). */
  headers(personalised = false): OutgoingHttpHeader[] {
    const headers = this.withCachingHeaders(['content-type', JSON_CONTENT_TYPE, 'content-length', this.byteLength], personalised);
    if (this.coding) headers.push('content-encoding', this.coding);
    return headers;
  }

  private withCachingHeaders(headers: OutgoingHttpHeader[], personalised: boolean): OutgoingHttpHeader[] {
    // Vary: a cache must keep each encoding apart, also for bodies too small to be compressed,
    // whose encoding a cache cannot know without asking.
    const cacheControl = personalised ? this.cacheControls.personal : this.cacheControls.shared;
    headers.push('etag', this.etag, 'cache-control', cacheControl, 'vary', 'accept-encoding');
    if (!personalised) for (const field of this.surrogateKeys) headers.push(field);
    return headers;
  }
}

/** Told when a compressed copy is added, with the key the body is cached under, so a store can count its bytes. */
export type GrowthListener = (key: string, representations: Representations) => void;

/**
 * A catalog read (a cacheable 200 JSON body) in every encoding it is sent in: as is (this object
 * itself: one object less per cached body than holding it apart), and gzip and brotli when it
 * is big enough for compression to pay. Each compressed copy is made once,
 * when a client first asks for that encoding, never per request: clients that do not ask for it
 * (or a body only ever sent to them) cost no compression CPU and no memory for it.
 */
export class Representations extends Representation {
  private gzipCopy: Representation | undefined;
  private brCopy: Representation | undefined;
  /**
   * Set by the store holding these, with the key they are held under: one listener for the
   * whole store, not a closure per cached body.
   */
  private heldUnder: string | undefined;
  private growthListener: GrowthListener | undefined;

  constructor(
    body: string,
    byteLength: number,
    etag: string,
    cacheControls: CatalogCacheControls,
    surrogateKeys: readonly OutgoingHttpHeader[],
    /** Makes the compressed copies; undefined when the body is too small to be compressed. */
    private readonly encoder: RepresentationEncoder | undefined,
  ) {
    super(body, byteLength, etag, undefined, cacheControls, surrogateKeys);
  }

  /** The body as is. */
  get identity(): Representation {
    return this;
  }

  get gzip(): Representation | undefined {
    if (this.encoder && !this.gzipCopy) {
      this.gzipCopy = this.encoder.compressed(this, 'gzip');
      this.grew();
    }
    return this.gzipCopy;
  }

  get br(): Representation | undefined {
    if (this.encoder && !this.brCopy) {
      this.brCopy = this.encoder.compressed(this, 'br');
      this.grew();
    }
    return this.brCopy;
  }

  /** Memory held by the bodies, every encoding made so far counted, and the surrogate keys (the in-process cache's byte budget). */
  get heldBytes(): number {
    let surrogateBytes = 0;
    for (let index = 1; index < this.surrogateKeys.length; index += 2) surrogateBytes += String(this.surrogateKeys[index]).length;
    return heldBytesOf(this) + surrogateBytes + (this.gzipCopy?.byteLength ?? 0) + (this.brCopy?.byteLength ?? 0);
  }

  /** Tells `listener` of every compressed copy made from now on. */
  watchGrowth(key: string, listener: GrowthListener): void {
    this.heldUnder = key;
    this.growthListener = listener;
  }

  /** The encoding the client prefers (q-values respected), else the body as is. */
  negotiate(acceptEncoding: string | string[] | undefined): Representation {
    // Small bodies are held as they are only.
    if (!this.encoder || typeof acceptEncoding !== 'string') return this;
    const coding = preferredCoding(acceptEncoding);
    return coding === 'br' ? this.br! : coding === 'gzip' ? this.gzip! : this;
  }

  private grew(): void {
    if (this.heldUnder !== undefined) this.growthListener?.(this.heldUnder, this);
  }
}

type Coding = 'br' | 'gzip' | 'identity';

// The server's preference breaks ties: brotli is smaller than gzip for the same JSON.
const negotiator = new Negotiator<Coding>({ supportedValues: ['br', 'gzip', 'identity'] });
/** Clients send a handful of distinct Accept-Encoding values: each is parsed once. */
const codingsByHeader = new LRUCache<string, Coding>({ max: 256 });

function preferredCoding(acceptEncoding: string): Coding {
  let coding = codingsByHeader.get(acceptEncoding);
  if (coding === undefined) codingsByHeader.set(acceptEncoding, (coding = negotiator.negotiate(acceptEncoding) ?? 'identity'));
  return coding;
}

/** Smaller bodies are sent as they are: compressing them saves a few bytes of a packet, and costs a header. */
export const COMPRESSION_MIN_BYTES = 1_024;

/**
 * Brotli quality 5 compresses a product's styles JSON (2–14 KB) in ~60–110 µs, 16–38 % smaller
 * than gzip's default level; quality 11 takes 5–60 ms per body for another 5 %.
 */
const BROTLI_OPTIONS = { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT } };

/**
 * A compressed copy must own a buffer of its own size: zlib's sync output is a slice of its
 * 16 KiB output chunk, and one small slice kept in the cache keeps the whole chunk alive after
 * its neighbours were evicted.
 */
function ownCopy(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

/**
 * What a body's text takes in memory: V8 keeps a string at one byte a character when every
 * character fits (ASCII surely: its UTF-8 length is its length), else possibly at two.
 */
function heldBytesOf({ body, byteLength }: Representation): number {
  return typeof body !== 'string' || byteLength === body.length ? byteLength : 2 * body.length;
}

export interface HttpCacheSettings {
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
  /** `s-maxage` for shared caches, set only when they are purged on every change (a purge target is configured). */
  sharedMaxAgeSeconds?: number;
  /** The surrogate-key headers; none when absent. */
  surrogateHeaders?: SurrogateHeaderNames;
}

/**
 * The Cache-Control of catalog reads. Browsers keep them `max-age` (short: nothing purges a
 * browser); shared caches `s-maxage` when given (long: every change purges them), else `max-age`
 * too; `no-cache` means always revalidate. `stale-while-revalidate` lets either serve a copy past
 * its age once while it fetches anew: for a purged shared cache that only happens to copies no
 * change touched, or while purges fail.
 */
export function catalogReadCacheControls({
  maxAgeSeconds,
  staleWhileRevalidateSeconds,
  sharedMaxAgeSeconds,
}: HttpCacheSettings): CatalogCacheControls {
  const stale = staleWhileRevalidateSeconds > 0 ? `, stale-while-revalidate=${staleWhileRevalidateSeconds}` : '';
  const browser = maxAgeSeconds === 0 ? 'no-cache' : `max-age=${maxAgeSeconds}${stale}`;
  if (sharedMaxAgeSeconds === undefined) return { shared: `public, ${browser}`, personal: `private, ${browser}` };
  return { shared: `public, max-age=${maxAgeSeconds}, s-maxage=${sharedMaxAgeSeconds}${stale}`, personal: `private, ${browser}` };
}

/**
 * Turns a catalog read's body into its Representations. The ETag is the SHA-256 of the body as is
 * (its first 132 bits, in base64url), so every replica gives the same body the same ETag; a compressed encoding
 * is a different representation (RFC 9110 §8.8.3), so its strong ETag carries the coding as a suffix.
 */
export class RepresentationEncoder {
  private readonly cacheControls: CatalogCacheControls;
  private readonly surrogateHeaders: SurrogateHeaderNames;

  constructor(settings: HttpCacheSettings) {
    this.cacheControls = catalogReadCacheControls(settings);
    this.surrogateHeaders = settings.surrogateHeaders ?? { spaceSeparated: undefined, commaSeparated: undefined };
  }

  /**
   * The body as is stays text: a Buffer per cached body would cost ~250 bytes of V8 heap and a
   * native allocation of its own (measured: ~650 bytes of RSS a body), more than most bodies.
   * `tags`: what the body was built from, for its surrogate keys.
   */
  encode(body: string, etag = this.etagOf(body), tags: readonly string[] = []): Representations {
    const byteLength = Buffer.byteLength(body);
    const surrogateKeys = surrogateKeyHeaders(this.surrogateHeaders, tags);
    const encoder = byteLength < COMPRESSION_MIN_BYTES ? undefined : this;
    return new Representations(body, byteLength, etag, this.cacheControls, surrogateKeys, encoder);
  }

  /** The ETag of a body as is (`etag` of `encode`: one made for the same body before, say by another replica). */
  private etagOf(body: string): string {
    return `"${hash('sha256', body, 'base64url').slice(0, 22)}"`;
  }

  /** The `coding` copy of a body: its ETag is the body's with the coding as a suffix. */
  compressed(identity: Representation, coding: 'gzip' | 'br'): Representation {
    const compressed = coding === 'gzip' ? gzipSync(identity.body) : brotliCompressSync(identity.body, BROTLI_OPTIONS);
    const bytes = ownCopy(compressed);
    const etag = `${identity.etag.slice(0, -1)}-${coding}"`;
    return new Representation(bytes, bytes.length, etag, coding, this.cacheControls, identity.surrogateKeys);
  }
}
