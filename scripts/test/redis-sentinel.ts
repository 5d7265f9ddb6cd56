import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { GroupProcess, runOk } from './process.js';
import { startRedis, type RedisServer } from './redis.js';
import { waitFor } from './wait.js';

/**
 * A Redis primary, one replica and three Sentinels watching them (real redis-server, the
 * Sentinels being redis-server in sentinel mode, as Debian's redis-sentinel runs it), all on
 * private loopback ports, without persistence.
 */
export interface RedisSentinelGroup {
  /** The master group name the Sentinels monitor. */
  readonly masterName: string;
  /** `127.0.0.1:port,…` of the three Sentinels, as `REDIS_SENTINELS` takes them. */
  readonly sentinels: string;
  /** The port of the server the Sentinels name primary now. */
  primaryPort(): Promise<number>;
  /**
   * kill -9 of the current primary; resolves once the Sentinels have promoted the replica and
   * the killed server is back (empty) as the new primary's replica, with both ports.
   */
  killPrimary(): Promise<{ from: number; to: number }>;
  stop(): Promise<void>;
}

const REDIS_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const REDIS_CLI_BIN = process.env.REDIS_CLI_BIN ?? 'redis-cli';
const MASTER_NAME = 'catalog';
/** How long a silent primary is given before the Sentinels call it down and fail over. */
const DOWN_AFTER_MS = 1_000;
const FAILOVER_TIMEOUT_MS = 10_000;

const cli = async (port: number, ...args: string[]) =>
  (await runOk(REDIS_CLI_BIN, ['-h', '127.0.0.1', '-p', String(port), ...args])).trim();

/** `SENTINEL MASTER <name>`'s flat field/value reply as a map. */
async function masterState(sentinelPort: number): Promise<Map<string, string>> {
  const lines = (await cli(sentinelPort, 'SENTINEL', 'MASTER', MASTER_NAME)).split('\n');
  return new Map(lines.flatMap((line, index) => (index % 2 === 0 ? [[line, lines[index + 1] ?? '']] : [])));
}

async function startSentinel(dir: string, index: number, primaryPort: number): Promise<{ port: number; process: GroupProcess }> {
  const port = await freePort();
  const configFile = join(dir, `sentinel-${index}.conf`);
  // Sentinels rewrite their own configuration file (what they learn of replicas and each other).
  await writeFile(
    configFile,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${MASTER_NAME} ${FAILOVER_TIMEOUT_MS}`,
      `sentinel parallel-syncs ${MASTER_NAME} 1`,
      '',
    ].join('\n'),
  );
  const sentinel = new GroupProcess(`redis sentinel ${index}`, REDIS_BIN, [configFile, '--sentinel']);
  await sentinel.waitForOutput(`+monitor master ${MASTER_NAME}`, 30_000);
  return { port, process: sentinel };
}

export async function startRedisSentinelGroup(): Promise<RedisSentinelGroup> {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-sentinel-'));
  const primary = await startRedis();
  const replica = await startRedis({ replicaOf: primary.port });
  const servers: RedisServer[] = [primary, replica];
  const sentinels = await Promise.all([0, 1, 2].map((index) => startSentinel(dir, index, primary.port)));
  const sentinelPort = sentinels[0]!.port;

  const primaryPort = async () => Number((await cli(sentinelPort, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)).split('\n')[1]);
  /** Every Sentinel sees the primary up, one replica and the two other Sentinels. */
  const settled = (what: string) =>
    waitFor(
      what,
      async () => {
        for (const { port } of sentinels) {
          const state = await masterState(port);
          if (state.get('flags') !== 'master' || state.get('num-slaves') !== '1' || state.get('num-other-sentinels') !== '2')
            return undefined;
        }
        const replicas = await cli(sentinelPort, 'SENTINEL', 'REPLICAS', MASTER_NAME);
        return replicas.includes('master-link-status\nok') ? true : undefined;
      },
      60_000,
      200,
    );
  await settled('the Sentinels to see the primary, its replica and each other');

  return {
    masterName: MASTER_NAME,
    sentinels: sentinels.map(({ port }) => `127.0.0.1:${port}`).join(','),
    primaryPort,
    async killPrimary() {
      const from = await primaryPort();
      const killed = servers.find((server) => server.port === from)!;
      await killed.kill();
      const to = await waitFor(
        'the Sentinels to promote the replica',
        async () => {
          const port = await primaryPort();
          return port !== from ? port : undefined;
        },
        60_000,
        100,
      );
      // Back empty, as a restarted pod without persistence; the Sentinels make it the new primary's replica.
      await killed.start();
      await settled('the killed primary to be back as the replica');
      return { from, to };
    },
    async stop() {
      await Promise.allSettled([...sentinels.map(({ process }) => process.stop(5_000)), ...servers.map((server) => server.stop())]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
