import type { Client } from './client-identity.js';

/**
 * A client's use of the current window as this replica knows it: what this replica admitted,
 * and what the other replicas had admitted when Redis last told it.
 */
export class ClientUsage {
  ownRequests = 0;
  ownCost = 0;
  otherRequests = 0;
  otherCost = 0;
  /** Listed for the next sync. */
  touched = false;
  /** Its first refusal this window was logged (one line per client and window). */
  refusalLogged = false;

  constructor(readonly client: Client) {}

  get requests(): number {
    return this.ownRequests + this.otherRequests;
  }

  get cost(): number {
    return this.ownCost + this.otherCost;
  }
}

/** The usages counted since the last sync, and the window they belong to. */
export interface TouchedUsages {
  window: number;
  usages: ClientUsage[];
}

/**
 * Fixed windows of `windowMs`, the same on every replica (they start at multiples of it in Unix
 * time), and each client's usage of the current one. A new window forgets the last one whole, so
 * memory holds only the clients seen in one window.
 */
export class WindowCounters {
  private usages = new Map<string, ClientUsage>();
  private touched: ClientUsage[] = [];
  /** Index of the current window (Unix time / windowMs). */
  private window = -1;
  private endsAt = 0;

  constructor(readonly windowMs: number) {}

  usageOf(client: Client, now: number): ClientUsage {
    if (now >= this.endsAt) this.startWindow(now);
    let usage = this.usages.get(client.key);
    if (!usage) this.usages.set(client.key, (usage = new ClientUsage(client)));
    return usage;
  }

  /** Counts one request unless that would go over `quota`. */
  takeRequest(usage: ClientUsage, quota: number): boolean {
    if (usage.requests >= quota) return false;
    usage.ownRequests += 1;
    this.touch(usage);
    return true;
  }

  /** Counts `cost` unless that would go over `budget`. */
  takeCost(usage: ClientUsage, cost: number, budget: number): boolean {
    if (usage.cost + cost > budget) return false;
    usage.ownCost += cost;
    this.touch(usage);
    return true;
  }

  /** Whole seconds until the current window ends (at least 1: the draft's delay-seconds, and Retry-After, are integers). */
  secondsLeft(now: number): number {
    return Math.max(1, Math.ceil((this.endsAt - now) / 1_000));
  }

  /** Clients counted in the current window. */
  get size(): number {
    return this.usages.size;
  }

  /** Takes the usages that changed since the last call, for a sync. */
  takeTouched(): TouchedUsages {
    const usages = this.touched;
    this.touched = [];
    for (const usage of usages) usage.touched = false;
    return { window: this.window, usages };
  }

  /** Lists usages again whose sync failed, unless their window is over. */
  retouch({ window, usages }: TouchedUsages): void {
    if (window === this.window) for (const usage of usages) this.touch(usage);
  }

  /** Records what Redis reported of the other replicas, unless the window is over. */
  applyOthers(window: number, usage: ClientUsage, others: { requests: number; cost: number }): void {
    if (window !== this.window) return;
    usage.otherRequests = others.requests;
    usage.otherCost = others.cost;
  }

  private touch(usage: ClientUsage): void {
    if (usage.touched) return;
    usage.touched = true;
    this.touched.push(usage);
  }

  private startWindow(now: number): void {
    this.window = Math.floor(now / this.windowMs);
    this.endsAt = (this.window + 1) * this.windowMs;
    this.usages = new Map();
    this.touched = [];
  }
}
