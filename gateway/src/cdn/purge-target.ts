/**
 * A shared cache the gateway purges by tag: Varnish, Fastly or Cloudflare, each through its own
 * HTTP interface (cdn/targets/). A purge either resolves (the cache took it) or throws a
 * PurgeFailed whose message names the target and what it answered, never a credential.
 */
export interface PurgeTarget {
  /** Names the target in metrics and logs: its kind and host, no credential. */
  readonly name: string;
  /** Most tags one request may carry (the API's documented limit, or a header size that fits). */
  readonly maxTagsPerRequest: number;
  purge(tags: readonly string[], signal: AbortSignal): Promise<void>;
}

export class PurgeFailed extends Error {}

/** The longest part of an answer's body quoted in a failure: enough to read an API's error, not a page. */
const QUOTED_BODY_CHARS = 200;

/** Resolves when `response` is a 2xx; else throws what `target` answered (status and the start of its body). */
export async function expectSuccess(target: string, response: Response): Promise<string> {
  const body = await response.text();
  if (response.ok) return body;
  const excerpt = body.replace(/\s+/g, ' ').trim().slice(0, QUOTED_BODY_CHARS);
  throw new PurgeFailed(`${target} answered ${response.status}${excerpt ? `: ${excerpt}` : ''}`);
}

/** `fetch`, its failures (refused, reset, timed out) as PurgeFailed naming the target, never the request's headers. */
export async function sendPurge(target: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = (error as Error).name === 'TimeoutError' ? 'timed out' : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new PurgeFailed(`${target} did not answer: ${reason}`);
  }
}

/** A purge API's JSON POST (Fastly's, Cloudflare's): `authorization` is the header carrying the token. Resolves with the 2xx body. */
export async function postPurge(
  target: string,
  url: string,
  authorization: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
): Promise<{ status: number; body: string }> {
  const response = await sendPurge(target, url, {
    method: 'POST',
    headers: { ...authorization, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  return { status: response.status, body: await expectSuccess(target, response) };
}
