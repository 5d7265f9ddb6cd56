import { hash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Long windows, so a test runs inside one (see awayFromWindowEdge). */
export const WINDOW_SECONDS = 3600;

/**
 * Windows start at multiples of their length in Unix time: a test that counts to a limit waits
 * out the last seconds of a window rather than see its counts start over halfway.
 */
export async function awayFromWindowEdge(marginSeconds = 60): Promise<void> {
  const windowMs = WINDOW_SECONDS * 1_000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginSeconds * 1_000) await sleep(left + 100);
}

/** A client with a key of its own and a name no earlier run used (Redis keeps a window's counts two windows). */
export function newClient(label: string): { name: string; key: string; keySha256: string } {
  const name = `${label}-${randomBytes(4).toString('hex')}`;
  const key = `key-${randomBytes(16).toString('hex')}`;
  return { name, key, keySha256: hash('sha256', key, 'hex') };
}

/** An address from the IPv6 documentation block, in a /64 no earlier run used. */
export const newIpv6Client = (): string => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;

/** The RATE_LIMIT_* settings of a test: on, long windows, fast syncs, and the clients given. */
export function limitsEnv(settings: {
  requests: number;
  graphqlCost?: number;
  clients?: Record<string, Record<string, unknown>>;
  classes?: Record<string, Record<string, unknown>>;
  trustedProxies?: string;
}): Record<string, string> {
  return {
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    RATE_LIMIT_REQUESTS: String(settings.requests),
    RATE_LIMIT_GRAPHQL_COST: String(settings.graphqlCost ?? 1_000_000),
    RATE_LIMIT_SYNC_MS: '20',
    RATE_LIMIT_CLIENTS: JSON.stringify({ clients: settings.clients ?? {}, classes: settings.classes ?? {} }),
    RATE_LIMIT_TRUSTED_PROXIES: settings.trustedProxies ?? '',
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request over a real socket (the hot lane only sees those), from `localAddress` when given:
 * Linux lets a socket leave from any 127.0.0.0/8 address, so a test can be two clients.
 */
export function send(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress, agent: false },
      (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (body += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode!, headers: incoming.headers, body }));
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** POST /graphql with a JSON body. */
export const sendGraphQL = (base: string, query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) =>
  send(base, '/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });

/** The parameters of one item of a RateLimit / RateLimit-Policy field (`"requests";r=3;t=40`), by policy name. */
export function fieldItems(field: string | string[] | number | undefined): Record<string, Record<string, string>> {
  const items: Record<string, Record<string, string>> = {};
  for (const item of String(field ?? '').split(',')) {
    const [name, ...parameters] = item.trim().split(';');
    if (!name) continue;
    items[JSON.parse(name) as string] = Object.fromEntries(parameters.map((parameter) => parameter.split('=') as [string, string]));
  }
  return items;
}

/** A named client's requests this window as Redis holds them: the sum of every replica's count. */
export async function requestsInRedis(redis: Redis, name: string): Promise<number> {
  const window = Math.floor(Date.now() / (WINDOW_SECONDS * 1_000));
  const counts = await redis.hgetall(`catalog:limits:${WINDOW_SECONDS}:${window}:name:${name}`);
  return Object.entries(counts).reduce((sum, [field, value]) => (field.startsWith('requests:') ? sum + Number(value) : sum), 0);
}
