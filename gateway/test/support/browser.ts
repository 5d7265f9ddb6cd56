import { createServer } from 'node:http';
import type { BrowserContext } from 'playwright-core';

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
