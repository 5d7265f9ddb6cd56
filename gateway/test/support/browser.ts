import { createServer } from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { waitFor } from '../../../scripts/test/wait.js';

/** A tiny static server on another loopback port: a second origin whose page calls the gateway. */
export async function startPageOrigin(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>storefront</title><p>storefront');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Keeps the browser offline but for `origins`: every other request is aborted and recorded, so
 * a test can assert that none was attempted.
 */
export async function allowOnlyOrigins(context: BrowserContext, origins: string[]): Promise<string[]> {
  const refused: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (origins.includes(new URL(url).origin)) return route.continue();
    refused.push(url);
    return route.abort();
  });
  return refused;
}

export interface PageFetchResult {
  status?: number;
  body?: unknown;
  /** Response headers the page's script can read. */
  headers?: Record<string, string>;
  /** What fetch() rejected with (a CORS refusal is a TypeError). */
  error?: string;
}

export interface Revalidation {
  /** The If-None-Match the browser sent when it fetched `url` again. */
  ifNoneMatch: string | undefined;
  /** The status on the wire for that second request (fetch() itself sees the cached 200). */
  wireStatus: number;
  /** Whether the page read the same body both times. */
  sameBody: boolean;
}

/**
 * Fetches `url` twice from the page's script, the second time with `cache: 'no-cache'` (the
 * browser must revalidate what it holds), and reports what went over the wire for the second.
 * Needs a context without request interception: Playwright turns the HTTP cache off under it.
 */
export async function fetchAgainRevalidating(context: BrowserContext, page: Page, url: string): Promise<Revalidation> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  // DevTools reports a request in several events, in no fixed order: gather them by request id.
  const requestIds: string[] = [];
  const sentHeaders = new Map<string, Record<string, unknown>>();
  const statuses = new Map<string, number>();
  cdp.on('Network.requestWillBeSent', ({ requestId, request }) => {
    if (request.url === url) requestIds.push(requestId);
  });
  cdp.on('Network.requestWillBeSentExtraInfo', ({ requestId, headers }) => sentHeaders.set(requestId, headers));
  cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode }) => statuses.set(requestId, statusCode));
  const [first, second] = await page.evaluate(async (url) => {
    const first = await (await fetch(url)).text();
    const second = await (await fetch(url, { cache: 'no-cache' })).text();
    return [first, second];
  }, url);
  const again = await waitFor(
    `DevTools' report of the second GET ${url}`,
    async () => {
      const id = requestIds[1];
      const headers = id === undefined ? undefined : sentHeaders.get(id);
      const status = id === undefined ? undefined : statuses.get(id);
      return headers && status !== undefined ? { headers, status } : undefined;
    },
    10_000,
    20,
  );
  await cdp.detach();
  const ifNoneMatch = Object.entries(again.headers).find(([name]) => name.toLowerCase() === 'if-none-match')?.[1];
  return { ifNoneMatch: ifNoneMatch === undefined ? undefined : String(ifNoneMatch), wireStatus: again.status, sameBody: first === second };
}
