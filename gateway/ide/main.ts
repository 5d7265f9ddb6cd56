// The GraphQL IDE page's script (runs in the browser; bundled by ./build.ts into dist/ide/):
// GraphiQL against this gateway's /graphql, its Monaco editor workers served beside it.
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { PRODUCT_PAGE_QUERY } from './product-page.js';

// The worker files' hashed names, set by the build (esbuild `define`).
declare const IDE_WORKERS: { editor: string; json: string; graphql: string };

(globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    const file = label === 'json' ? IDE_WORKERS.json : label === 'graphql' ? IDE_WORKERS.graphql : IDE_WORKERS.editor;
    return new Worker(new URL(file, import.meta.url));
  },
};

// The page is served at the endpoint itself (GET /graphql for browsers), so that is the URL to post to.
const endpoint = `${location.origin}${location.pathname}`;
const fetcher = createGraphiQLFetcher({ url: endpoint });
// Opens on the product-page query (a tab of its own once others are stored); the variables go in
// as initialVariables, which GraphiQL's variables editor reads (it ignores a default tab's).
const productPage = { initialQuery: PRODUCT_PAGE_QUERY, initialVariables: JSON.stringify({ id: '1' }, null, 2) };

createRoot(document.getElementById('graphiql')!).render(createElement(GraphiQL, { fetcher, ...productPage }));
