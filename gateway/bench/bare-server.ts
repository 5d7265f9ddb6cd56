/**
 * The ceiling for any Node HTTP service on this machine: a bare node:http server that first
 * records the gateway's responses for every path it will be asked for, then serves those
 * exact bytes from a Map. Env: UPSTREAM_URL, PATHS_FILE (one path a line), PORT, ACCEPT_ENCODING
 * (what the recording asks the gateway for: what the replay will ask, see run.ts `replayEncoding`).
 */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { forEachConcurrently } from './concurrently.js';

interface RecordedResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

const RECORDING_CONCURRENCY = 32;

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const upstreamUrl = requiredEnv('UPSTREAM_URL');
const port = Number(requiredEnv('PORT'));
const acceptEncoding = requiredEnv('ACCEPT_ENCODING');
const paths = [...new Set((await readFile(requiredEnv('PATHS_FILE'), 'utf8')).split('\n').filter(Boolean))];

const recorded = new Map<string, RecordedResponse>();
const started = Date.now();
await forEachConcurrently(paths, RECORDING_CONCURRENCY, async (path) => {
  const response = await fetch(upstreamUrl + path, { headers: { 'accept-encoding': acceptEncoding } });
  recorded.set(path, {
    status: response.status,
    contentType: response.headers.get('content-type') ?? 'application/json',
    body: Buffer.from(await response.arrayBuffer()),
  });
});
const failed = [...recorded.values()].filter(({ status }) => status >= 400).length;
console.log(`recorded ${recorded.size} responses (${failed} non-2xx) from ${upstreamUrl} in ${Date.now() - started} ms`);

createServer((request, response) => {
  const hit = recorded.get(request.url ?? '');
  if (!hit) {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: `not recorded: ${request.url}` }));
    return;
  }
  response.writeHead(hit.status, { 'content-type': hit.contentType, 'content-length': hit.body.length });
  response.end(hit.body);
}).listen(port, '127.0.0.1', () => console.log(`bare node:http replaying on 127.0.0.1:${port}`));
