import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { withChromium } from '../../../scripts/test/chromium.js';
import { createFixtureDatabase, startListeningGateway } from '../support/gateway.js';
import { allowOnlyOrigins } from '../support/browser.js';

/** Waits until the element `selector` shows `text` (Monaco's spaces normalised); returns all it shows. */
async function waitForText(page: Page, selector: string, text: string): Promise<string> {
  const shown = await page.waitForFunction(
    ([selector, text]) => {
      const shown = (document.querySelector(selector)?.textContent ?? '').replace(/\s+/g, ' ');
      return shown.includes(text) && shown;
    },
    [selector, text] as const,
  );
  return (await shown.jsonValue()) as string;
}

describe('GraphQL IDE in headless Chromium, offline', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase(), { GRAPHQL_IDE: 'true', GRAPHQL_INTROSPECTION: 'true' }));
  });
  after(() => app.close());

  it('loads from the gateway alone, loads the schema, runs the product-page query and shows docs', async () => {
    await withChromium(async (context) => {
      const refused = await allowOnlyOrigins(context, [base]);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(String(error)));
      const introspection = page.waitForResponse(
        (response) => response.url() === `${base}/graphql` && (response.request().postData() ?? '').includes('__schema'),
      );

      const navigation = await page.goto(`${base}/graphql`);
      assert.match(navigation!.headers()['content-type']!, /^text\/html/);
      assert.equal((await introspection).status(), 200);
      await waitForText(page, '.graphiql-query-editor', 'query ProductPage($id: ID!)');

      await page.click('.graphiql-execute-button');
      const response = await waitForText(page, '.graphiql-response', '"name": "Camo Onesie"');
      assert.match(response, /"slogan": "Blend in to your crowd"/);

      await page.click('[aria-label="Show Documentation Explorer"]');
      await waitForText(page, '.graphiql-doc-explorer', 'Query');
      await page.click('.graphiql-doc-explorer a:has-text("Query")');
      await waitForText(page, '.graphiql-doc-explorer', 'product(');

      assert.deepEqual(refused, [], 'the IDE asked for nothing beyond the gateway');
      assert.deepEqual(problems, [], 'no script errors or Content-Security-Policy violations');
    });
  });
});
