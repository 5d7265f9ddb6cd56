import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { MetricsExposition } from './exposition.js';

const METRICS_PATH = '/metrics';

/**
 * `GET /metrics` on a listener of its own (METRICS_HOST:METRICS_PORT): Prometheus scrapes it from
 * inside the cluster, while the public port, which browsers reach, publishes no internals. A
 * plain node:http server: scrapes are not API requests, so they pass through none of the API's
 * hooks and are not counted in its request metrics.
 */
export class MetricsListener {
  private readonly server: Server;
  private readonly exposition: MetricsExposition;
  private origin: string | undefined;

  constructor(
    registry: Registry,
    private readonly logger: Logger,
  ) {
    this.exposition = new MetricsExposition(registry);
    this.server = createServer((request, response) => void this.answer(request, response));
  }

  /** Starts listening; port 0 takes any free port (see `url`). */
  async listen(host: string, port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.origin = `http://${host}:${(this.server.address() as AddressInfo).port}`;
  }

  /** The URL Prometheus scrapes, with the port actually bound. */
  get url(): string {
    if (!this.origin) throw new Error('the metrics listener is not listening yet');
    return `${this.origin}${METRICS_PATH}`;
  }

  /** Stops listening; a scrape in progress finishes, idle keep-alive connections are closed. */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? '/', 'http://metrics').pathname !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`only ${METRICS_PATH} is served here\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('GET or HEAD only\n');
      return;
    }
    try {
      const { contentType, body } = await this.exposition.render(request.headers.accept);
      response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (error) {
      this.logger.error({ err: error }, 'collecting metrics failed');
      response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('collecting metrics failed\n');
    }
  }
}
