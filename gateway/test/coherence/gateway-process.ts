// A gateway as a coherence run needs it: the CLI in its own process on a fixed loopback port,
// which can be frozen, killed and started again on that same port.
import type { GroupProcess } from '../../../scripts/test/process.js';
import { freePort } from '../../../scripts/test/ports.js';
import { answersOk } from '../../../scripts/test/wait.js';
import { startGatewayCli } from '../support/gateway.js';

/** Generous: tsx compiles the gateway on every start, on a machine the whole suite shares. */
const START_TIMEOUT_MS = 120_000;

export interface GatewayProcess {
  readonly name: string;
  readonly base: string;
  /** Its `/metrics` (on a listener of its own where the gateway has one: METRICS_PORT). */
  readonly metricsUrl: string;
  /** The running process's id (a new one after each start). */
  readonly pid: number;
  /** False once the process has exited (killed, or crashed). */
  readonly running: boolean;
  /** SIGSTOP: its sockets stay open, nothing answers. */
  freeze(): void;
  thaw(): void;
  /** kill -9; resolves with the signal that ended it. */
  kill(): Promise<NodeJS.Signals | null>;
  /** Starts it again (same port, same settings) and waits until it answers /readyz. */
  start(): Promise<void>;
  stop(): Promise<void>;
  logTail(): string;
  /** Everything the running process printed so far (its JSON log lines). */
  readonly output: string;
}

/**
 * Starts the gateway CLI named `name` with `env` (PORT and HOST are its own) and waits until it is
 * ready; `entry`: another source's CLI (next-protocol.ts), else this one's.
 */
export async function startGatewayProcess(name: string, env: Record<string, string>, entry?: string): Promise<GatewayProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Gateways on one host: each metrics listener on a port of its own, not the default.
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  let child: GroupProcess;
  const start = async () => {
    child = startGatewayCli([], { ...env, HOST: '127.0.0.1', PORT: String(port), METRICS_PORT: String(metricsPort) }, entry);
    await child.waitUntilReady(() => answersOk(`${base}/readyz`), START_TIMEOUT_MS);
  };
  await start();
  return {
    name,
    base,
    metricsUrl,
    get pid() {
      return child.pid!;
    },
    get running() {
      return child.running;
    },
    freeze: () => child.signal('SIGSTOP'),
    thaw: () => child.signal('SIGCONT'),
    async kill() {
      await child.stop(0);
      return child.signalCode;
    },
    start,
    async stop() {
      child.signal('SIGCONT');
      await child.stop(15_000);
    },
    logTail: () => child.logTail(40),
    get output() {
      return child.output;
    },
  };
}
