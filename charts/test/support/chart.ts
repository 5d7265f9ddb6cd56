import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { run, runOk, type RunResult } from '../../../scripts/test/process.js';
import { requireTool } from './tools.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART_DIR = join(REPO_ROOT, 'charts/catalog-gateway');
export const RELEASE = 'shop';
export const NAMESPACE = 'catalog';

/**
 * What an offline render (`helm template`, no cluster to keep generated passwords in) must be
 * given: the chart refuses to make them up there (chart README, "Passwords"). Test renders only.
 */
export const OFFLINE_CREDENTIALS = {
  postgresql: { auth: { password: 'offline-render-postgres', replicationPassword: 'offline-render-replication' } },
  redis: { auth: { password: 'offline-render-redis' } },
};

/** Value sets every check renders: the defaults and the other ways people run it. */
export const VALUE_SETS: Record<string, object> = {
  defaults: {},
  'external Postgres + Redis, monitoring off': {
    postgresql: { enabled: false },
    externalDatabase: { url: 'postgres://catalog:s3cret@db.example.internal:5432/catalog' },
    redis: { enabled: false },
    externalRedis: { url: 'redis://cache.example.internal:6379/0' },
    prometheus: { enabled: false },
    kubeStateMetrics: { enabled: false },
    grafana: { enabled: false },
  },
  'HPA off, fixed replicas, CSVs from a PVC': {
    gateway: { autoscaling: { enabled: false }, replicas: 3, writeToken: 'token-for-writes' },
    loader: { source: 'pvc', pvc: { claimName: 'atelier-csv', subPath: 'export' } },
  },
  'HPA on CPU and the custom RPS metric': {
    gateway: { autoscaling: { requestsPerSecond: { enabled: true, averageValue: '150' } } },
  },
  'read replicas, Redis Sentinel, Jaeger': {
    postgresql: { readReplicas: { replicaCount: 2 } },
    redis: { sentinel: { enabled: true } },
    tracing: { jaeger: { enabled: true } },
  },
  'external CloudNativePG, Redis Sentinels and OTLP collector': {
    postgresql: { enabled: false },
    externalDatabase: {
      url: 'postgres://app:s3cret@catalog-db-rw.databases:5432/app',
      readUrls: ['postgres://app:s3cret@catalog-db-ro.databases:5432/app'],
    },
    redis: { enabled: false },
    externalRedis: {
      sentinels: ['sentinel-0.cache:26379', 'sentinel-1.cache:26379', 'sentinel-2.cache:26379'],
      sentinelMaster: 'mymaster',
      password: 'redis-s3cret',
    },
    tracing: { otlpEndpoint: 'http://otel-collector.observability:4318' },
    grafana: { jaegerUrl: 'http://jaeger-query.observability:16686' },
  },
};

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Wraps a command line, e.g. to run it inside a network namespace. */
export type CommandWrapper = (command: string, args: string[]) => [string, string[]];

/** Helm with its config, cache and data kept in a private temp dir (nothing written to ~). */
export class Helm {
  readonly home = mkdtempSync(join(tmpdir(), 'catalog-helm-'));
  readonly binary = requireTool('helm');

  constructor(
    private readonly kubeconfig?: string,
    private readonly wrap: CommandWrapper = (command, args) => [command, args],
  ) {}

  private env(): NodeJS.ProcessEnv {
    return {
      HELM_CONFIG_HOME: join(this.home, 'config'),
      HELM_CACHE_HOME: join(this.home, 'cache'),
      HELM_DATA_HOME: join(this.home, 'data'),
      ...(this.kubeconfig ? { KUBECONFIG: this.kubeconfig } : {}),
    };
  }

  /** `-f` arguments: the offline credentials, then values (which may override them). */
  offlineValuesArgs(values: object): string[] {
    return ['-f', this.valuesFile(OFFLINE_CREDENTIALS), '-f', this.valuesFile(values)];
  }

  /** Writes values to a file for `-f`, so they reach helm with their types intact. */
  valuesFile(values: object): string {
    const file = join(this.home, `values-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(values));
    return file;
  }

  run(args: string[]): Promise<RunResult> {
    return run(...this.wrap(this.binary, args), { env: this.env() });
  }

  ok(args: string[]): Promise<string> {
    return runOk(...this.wrap(this.binary, args), { env: this.env() });
  }

  /** Arguments of `helm install|upgrade` of the chart as the test release, waiting for its pods and hook Jobs. */
  deployArgs(command: 'install' | 'upgrade', values: object, timeout: string): string[] {
    return [
      command,
      RELEASE,
      CHART_DIR,
      '--namespace',
      NAMESPACE,
      '-f',
      this.valuesFile(values),
      '--wait',
      '--wait-for-jobs',
      '--timeout',
      timeout,
    ];
  }

  /** `helm template` of the chart with the given values (and the offline credentials), as YAML text. */
  template(values: object, extraArgs: string[] = []): Promise<string> {
    return this.ok(['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, ...this.offlineValuesArgs(values), ...extraArgs]);
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** Parses rendered manifests into objects (empty documents dropped). */
export function parseManifests(yamlText: string): Manifest[] {
  return parseAllDocuments(yamlText)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(document.errors.map(String).join('\n'));
      return document.toJS() as Manifest | null;
    })
    .filter((manifest): manifest is Manifest => manifest !== null);
}

export function findManifest(manifests: Manifest[], kind: string, nameSuffix: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name.endsWith(nameSuffix));
  if (!found) {
    const present = manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ');
    throw new Error(`no ${kind} named *${nameSuffix} among ${present}`);
  }
  return found;
}
