import { freePort } from './ports.js';
import { GroupProcess } from './process.js';

/** A real redis-server (from the system) on a private loopback port, without persistence. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stalls the server with SIGSTOP: connections stay open, nothing answers. */
  freeze(): void;
  /** Resumes a frozen server (SIGCONT). */
  thaw(): void;
}

const REDIS_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let server: GroupProcess | undefined;

  const start = async () => {
    server = new GroupProcess(`${REDIS_BIN} (Debian's redis-server package)`, REDIS_BIN, [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    await server.waitForOutput('Ready to accept connections', 30_000);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await server?.stop(0);
    },
    start,
    freeze: () => server?.signal('SIGSTOP'),
    thaw: () => server?.signal('SIGCONT'),
  };
}
