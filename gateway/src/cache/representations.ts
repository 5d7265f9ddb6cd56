import { createHash } from 'node:crypto';
import type { OutgoingHttpHeader } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import { LRUCache } from 'lru-cache';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Response headers as a flat [name, value, name, value, …] list: what `writeHead` takes fastest
 * (a hit copies the list and appends its request id; copying a header object costs ~3 µs more).
 */
export type HeaderList = readonly OutgoingHttpHeader[];

/** One encoding of a catalog read, with the headers of its 200 and of its 304, made once. */
export interface Representation {
  bytes: Buffer;
  etag: string;
  headers: HeaderList;
  notModifiedHeaders: HeaderList;
}

/**
 * A catalog read (a cacheable 200 JSON body) in every encoding it is sent in: as is, and gzip
 * and brotli when it is big enough for compression to pay. Each compressed copy is made once,
 * when a client first asks for that encoding, never per request: clients that do not ask for it
 * (or a body only ever sent to them) cost no compression CPU and no memory for it.
 */
export class Representations {
  private readonly copies: { gzip?: Representation; br?: Representation } = {};
  /** Called when a compressed copy is added, so a store can count its bytes. */
  onGrow: (() => void) | undefined;

  constructor(
    readonly identity: Representation,
    /** Makes a compressed copy; undefined when the body is too small to be compressed. */
    private readonly compress: ((coding: 'gzip' | 'br') => Representation) | undefined,
  ) {}

  get gzip(): Representation | undefined {
    return this.copy('gzip');
  }

  get br(): Representation | undefined {
    return this.copy('br');
  }

  /** Bytes held, every encoding made so far counted (the in-process cache's byte budget). */
  get byteLength(): number {
    return this.identity.bytes.length + (this.copies.gzip?.bytes.length ?? 0) + (this.copies.br?.bytes.length ?? 0);
  }

  /** The encoding the client prefers (q-values respected), else the body as is. */
  negotiate(acceptEncoding: string | string[] | undefined): Representation {
    // Small bodies are held as they are only.
    if (!this.compress || typeof acceptEncoding !== 'string') return this.identity;
    const coding = preferredCoding(acceptEncoding);
    return coding === 'br' ? this.br! : coding === 'gzip' ? this.gzip! : this.identity;
  }

  private copy(coding: 'gzip' | 'br'): Representation | undefined {
    if (!this.compress) return undefined;
    let copy = this.copies[coding];
    if (!copy) {
      this.copies[coding] = copy = this.compress(coding);
      this.onGrow?.();
    }
    return copy;
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
 * A cached body must own a buffer of its own size. zlib's sync output is a slice of its 16 KiB
 * output chunk, and `Buffer.from` puts bodies under 4 KiB in slices of a shared 8 KiB pool: kept
 * in the cache, one small slice keeps its whole chunk alive after its neighbours were evicted
 * (measured: 200,000 bodies of 1.1 KB through 20,000 slots left 90 MiB of buffers alive as pool
 * slices, 42 MiB as buffers of their own).
 */
function ownCopy(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

/** The body as UTF-8 in a buffer of its own (see ownCopy). */
function ownBytes(body: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(body));
  bytes.write(body);
  return bytes;
}

export interface HttpCacheSettings {
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
}

/** The Cache-Control of catalog reads: shared caches may keep them; `no-cache` means always revalidate. */
export function catalogReadCacheControl({ maxAgeSeconds, staleWhileRevalidateSeconds }: HttpCacheSettings): string {
  if (maxAgeSeconds === 0) return 'public, no-cache';
  const stale = staleWhileRevalidateSeconds > 0 ? `, stale-while-revalidate=${staleWhileRevalidateSeconds}` : '';
  return `public, max-age=${maxAgeSeconds}${stale}`;
}

/**
 * Turns a catalog read's body into its Representations. The ETag is the SHA-256 of the body as is
 * (its first 132 bits, in base64url), so every replica gives the same body the same ETag; a compressed encoding
 * is a different representation (RFC 9110 §8.8.3), so its strong ETag carries the coding as a suffix.
 */
export class RepresentationEncoder {
  private readonly cacheControl: string;

  constructor(settings: HttpCacheSettings) {
    this.cacheControl = catalogReadCacheControl(settings);
  }

  encode(body: string): Representations {
    const bytes = ownBytes(body);
    const hash = createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
    const identity = this.representation(bytes, `"${hash}"`, undefined);
    if (bytes.length < COMPRESSION_MIN_BYTES) return new Representations(identity, undefined);
    return new Representations(identity, (coding) =>
      coding === 'gzip'
        ? this.representation(ownCopy(gzipSync(bytes)), `"${hash}-gzip"`, 'gzip')
        : this.representation(ownCopy(brotliCompressSync(bytes, BROTLI_OPTIONS)), `"${hash}-br"`, 'br'),
    );
  }

  private representation(bytes: Buffer, etag: string, coding: 'gzip' | 'br' | undefined): Representation {
    // Vary: a cache must keep each encoding apart, also for bodies too small to be compressed,
    // whose encoding a cache cannot know without asking.
    const notModifiedHeaders = ['etag', etag, 'cache-control', this.cacheControl, 'vary', 'accept-encoding'];
    const headers = ['content-type', JSON_CONTENT_TYPE, 'content-length', bytes.length, ...notModifiedHeaders];
    if (coding) headers.push('content-encoding', coding);
    return { bytes, etag, headers, notModifiedHeaders };
  }
}
