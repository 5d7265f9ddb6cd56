import type { Redis, Result } from 'ioredis';
import { ANNOUNCE, END_BESIDE, RENEW, SWAP, UNACKNOWLEDGED } from './clock.js';
import { RECORD_USAGE } from './client-usage.js';
import { LOAD, STORE } from './response-store.js';

// Every Lua script the gateway runs, and the commands they add to ioredis's types: one place, so
// a script's keys and arguments are read beside its call's signature.
declare module 'ioredis' {
  interface RedisCommander<Context> {
    coherenceAnnounce(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<[string, number], Context>;
    coherenceRenew(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<[string, number, string, string[]], Context>;
    coherenceEndBeside(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<[string, number], Context>;
    coherenceUnacknowledged(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<[number, number], Context>;
    coherenceSwap(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<string, Context>;
    coherenceLoad(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<string | null, Context>;
    coherenceStore(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
    recordClientUsage(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<number[], Context>;
  }
}

/** Registers every script on a command connection: sent as EVALSHA, each body once per connection. */
export function defineScripts(redis: Redis): void {
  redis.defineCommand('coherenceAnnounce', { lua: ANNOUNCE });
  redis.defineCommand('coherenceRenew', { lua: RENEW });
  redis.defineCommand('coherenceEndBeside', { lua: END_BESIDE });
  redis.defineCommand('coherenceUnacknowledged', { lua: UNACKNOWLEDGED });
  redis.defineCommand('coherenceSwap', { lua: SWAP });
  redis.defineCommand('coherenceLoad', { lua: LOAD });
  redis.defineCommand('coherenceStore', { lua: STORE });
  redis.defineCommand('recordClientUsage', { lua: RECORD_USAGE });
}
