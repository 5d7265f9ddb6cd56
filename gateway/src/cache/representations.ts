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
  /**
   * What is sent: the JSON text as is (a string: see textSize), or the compressed bytes.
   * Node writes a string body together with the headers in one system call.
   */
  body: string | Buffer;
  /** Memory the body takes, for the in-process cache's byte budget. */
  size: number;
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
    return this.identity.size + (this.copies.gzip?.size ?? 0) + (this.copies.br?.size ?? 0);
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
 * zlib's sync output is a slice of its 16 KiB output chunk: kept as is, every cached copy would
 * hold 16 KiB whatever its size (and the byte budget would not see it). A copy of its own size.
 */
function ownCopy(compressed: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(compressed.length);
  compressed.copy(copy);
  return copy;
}

/**
 * Memory a JSON text takes in the V8 heap: one byte a character when it is all ASCII, else
 * (counted conservatively) two. Bodies are kept as strings, not buffers: the heap compacts,
 * while a million small buffers freed in LRU order fragment the C heap (measured: 200,000
 * bodies of 1.1 KB through a 20,000-entry cache left 176 MiB RSS as buffers, 56 MiB as strings).
 */
function textSize(text: string, utf8Length: number): number {
  return utf8Length === text.length ? text.length : 2 * text.length;
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
    const utf8Length = Buffer.byteLength(body);
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 22);
    const identity = this.representation(body, textSize(body, utf8Length), utf8Length, `"${hash}"`, undefined);
    if (utf8Length < COMPRESSION_MIN_BYTES) return new Representations(identity, undefined);
    const compressed = (bytes: Buffer, coding: 'gzip' | 'br') =>
      this.representation(ownCopy(bytes), bytes.length, bytes.length, `"${hash}-${coding}"`, coding);
    return new Representations(identity, (coding) =>
      coding === 'gzip' ? compressed(gzipSync(body), 'gzip') : compressed(brotliCompressSync(body, BROTLI_OPTIONS), 'br'),
    );
  }

  private representation(
    body: string | Buffer,
    size: number,
    contentLength: number,
    etag: string,
    coding: 'gzip' | 'br' | undefined,
  ): Representation {
    // Vary: a cache must keep each encoding apart, also for bodies too small to be compressed,
    // whose encoding a cache cannot know without asking.
    const notModifiedHeaders = ['etag', etag, 'cache-control', this.cacheControl, 'vary', 'accept-encoding'];
    const headers = ['content-type', JSON_CONTENT_TYPE, 'content-length', contentLength, ...notModifiedHeaders];
    if (coding) headers.push('content-encoding', coding);
    return { body, size, etag, headers, notModifiedHeaders };
  }
}
