import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { PRODUCT_PAGE_QUERY } from '../../../scripts/test/product-page.js';
import { withChromium } from '../../../scripts/test/chromium.js';
import { allowOnlyOrigins, fetchAgainRevalidating, startPageOrigin, type PageFetchResult, type Revalidation } from '../support/browser.js';
import { createFixtureDatabase, startListeningGateway } from '../support/gateway.js';

/** fetch() run by the page's own script, as a storefront's code would call the gateway. */
function fetchFromPage(page: Page, url: string, init: RequestInit = {}): Promise<PageFetchResult> {
  return page.evaluate(
    async ([url, init]) => {
      try {
        const response = await fetch(url, init);
        const headers = Object.fromEntries(response.headers.entries());
        return { status: response.status, body: await response.json(), headers };
      } catch (error) {
        return { error: String(error) };
      }
    },
    [url, init] as const,
  );
}

function assertRevalidated(again: Revalidation): void {
  assert.ok(again.ifNoneMatch, 'the browser held an ETag to send back');
  assert.equal(again.wireStatus, 304);
  assert.ok(again.sameBody);
}

const productPagePost = (): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: PRODUCT_PAGE_QUERY, variables: { id: '1' } }),
});

describe('a page on another origin calling the gateway from headless Chromium', () => {
  let app: FastifyInstance;
  let base: string;
  let shop: Awaited<ReturnType<typeof startPageOrigin>>;
  let stranger: Awaited<ReturnType<typeof startPageOrigin>>;
  before(async () => {
    [shop, stranger] = await Promise.all([startPageOrigin(), startPageOrigin()]);
    ({ app, base } = await startListeningGateway(await createFixtureDatabase(), { CORS_ORIGINS: shop.origin, GRAPHQL_IDE: 'true' }));
  });
  after(async () => {
    await app.close();
    await Promise.all([shop.close(), stranger.close()]);
  });

  it('lets the allowed origin read REST and GraphQL answers, computed and cached, and refuses another origin', async () => {
    await withChromium(async (context) => {
      const refused = await allowOnlyOrigins(context, [base, shop.origin, stranger.origin]);
      const page = await context.newPage();

      await page.goto(`${shop.origin}/`);
      for (const attempt of ['computed', 'from the hot lane']) {
        const rest = await fetchFromPage(page, `${base}/products/1`);
        assert.equal(rest.status, 200, attempt);
        assert.equal((rest.body as { name: string }).name, 'Camo Onesie', attempt);
        assert.ok(rest.headers!['x-request-id'], 'exposed headers are readable');
        // A JSON POST is preflighted, which is also what lets it past Apollo's CSRF prevention.
        const graphql = await fetchFromPage(page, `${base}/graphql`, productPagePost());
        assert.equal(graphql.status, 200, attempt);
        assert.equal((graphql.body as { data: { product: { name: string } } }).data.product.name, 'Camo Onesie', attempt);
      }

      await page.goto(`${stranger.origin}/`);
      for (const [what, init] of [
        ['REST', {}],
        ['GraphQL', productPagePost()],
      ] as const) {
        const url = what === 'REST' ? `${base}/products/1` : `${base}/graphql`;
        const result = await fetchFromPage(page, url, init);
        assert.match(result.error ?? `status ${result.status}`, /TypeError: Failed to fetch/, `${what} from a disallowed origin`);
      }
      assert.deepEqual(refused, []);
    });
  });

  /** Runs `work` on a page of the allowed origin (no request interception: it turns the HTTP cache off). */
  const onShopPage = (work: (context: BrowserContext, page: Page) => Promise<void>) =>
    withChromium(async (context) => {
      const page = await context.newPage();
      await page.goto(`${shop.origin}/`);
      await work(context, page);
    });

  it('lets the allowed origin query GraphQL over GET, preflighted past CSRF prevention', async () => {
    await onShopPage(async (_context, page) => {
      const url = `${base}/graphql?${new URLSearchParams({ query: PRODUCT_PAGE_QUERY, variables: JSON.stringify({ id: '1' }) })}`;
      const result = await fetchFromPage(page, url, { headers: { 'apollo-require-preflight': 'true' } });
      assert.equal(result.status, 200, result.error);
      assert.equal((result.body as { data: { product: { name: string } } }).data.product.name, 'Camo Onesie');
    });
  });

  // The probe itself, on a response that carries a validator today (the IDE's stylesheet, with
  // @fastify/static's ETag): it must see If-None-Match go out and a 304 come back.
  it('sees the browser revalidate with If-None-Match and a 304 where the gateway sends an ETag', async () => {
    const page = await (await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } })).text();
    const stylesheet = `${base}${/href="(\/graphql\/ide\/[^"]+\.css)"/.exec(page)![1]}`;
    await onShopPage(async (context, page) => assertRevalidated(await fetchAgainRevalidating(context, page, stylesheet)));
  });

  it('revalidates a cached REST answer: the second fetch sends If-None-Match and gets 304', async () => {
    await onShopPage(async (context, page) => assertRevalidated(await fetchAgainRevalidating(context, page, `${base}/products/1/styles`)));
  });
});
