import { setTimeout as sleep } from 'node:timers/promises';
import { forEachConcurrently } from './concurrently.js';

/**
 * From a change's commit (or a gateway write's acknowledgement) to every tier answering the new
 * value: each tier (a gateway, Varnish) is read for the product from then on, every POLL_MS,
 * until it shows the new slogan. Each product is written once, after every tier has cached it,
 * so a tier that answers the new value has let go of the old one.
 */

/** Between two reads of one tier for one write: the resolution of the delays. */
export const POLL_MS = 5;
/** A tier that has not shown a write this long after it counts as not showing it. */
const GIVE_UP_MS = 30_000;

export interface Tier {
  name: string;
  baseUrl: string;
}

export interface Visibility {
  writes: number;
  /** Per write shown by every tier: ms from its commit (or acknowledgement) to the last tier's first answer showing it. */
  everyTierMs: number[];
  /** Per tier, per write: ms to its first answer showing it. */
  tierMs: Map<string, number[]>;
  /** Per tier: writes it answered with the old value at least once after the commit (it had it cached). */
  servedOld: Map<string, number>;
  /** Writes some tier did not show within GIVE_UP_MS. */
  unseen: number;
}

async function readSlogan(tier: Tier, id: number): Promise<string | null> {
  const response = await fetch(`${tier.baseUrl}/products/${id}`);
  const body = (await response.json()) as { slogan?: string | null };
  if (!response.ok) throw new Error(`${tier.name} answered ${response.status} to /products/${id}: ${JSON.stringify(body)}`);
  return body.slogan ?? null;
}

/** Reads every product from every tier twice, so each holds it (a gateway in memory and Redis, Varnish in its cache). */
export async function cacheEverywhere(tiers: readonly Tier[], ids: readonly number[]): Promise<void> {
  for (let pass = 0; pass < 2; pass += 1) {
    await forEachConcurrently(
      tiers.flatMap((tier) => ids.map((id) => ({ tier, id }))),
      16,
      async ({ tier, id }) => void (await readSlogan(tier, id)),
    );
  }
}

/** Reads `tier` until it shows `slogan`: ms from `since` to the answer that does, and whether it answered the old value first. */
async function firstShown(tier: Tier, id: number, slogan: string, since: number): Promise<{ ms: number | undefined; servedOld: boolean }> {
  let servedOld = false;
  for (;;) {
    const seen = await readSlogan(tier, id);
    const ms = performance.now() - since;
    if (seen === slogan) return { ms, servedOld };
    servedOld = true;
    if (ms > GIVE_UP_MS) return { ms: undefined, servedOld };
    await sleep(POLL_MS);
  }
}

/**
 * Writes each product of `ids` once at `perSecond` writes a second (`write` resolves at its
 * commit, or acknowledgement) and follows each on every tier.
 */
export async function measureVisibility(
  tiers: readonly Tier[],
  ids: readonly number[],
  perSecond: number,
  write: (id: number, slogan: string, index: number) => Promise<void>,
  label: string,
): Promise<Visibility> {
  const result: Visibility = {
    writes: ids.length,
    everyTierMs: [],
    tierMs: new Map(tiers.map((tier) => [tier.name, []])),
    servedOld: new Map(tiers.map((tier) => [tier.name, 0])),
    unseen: 0,
  };
  const started = performance.now();
  const followed: Promise<void>[] = [];
  for (const [index, id] of ids.entries()) {
    const due = started + (index * 1_000) / perSecond;
    if (due > performance.now()) await sleep(due - performance.now());
    const slogan = `${label} ${index} at ${Date.now()}`;
    followed.push(
      (async () => {
        await write(id, slogan, index);
        const since = performance.now();
        const shown = await Promise.all(tiers.map((tier) => firstShown(tier, id, slogan, since)));
        for (const [position, { ms, servedOld }] of shown.entries()) {
          const name = tiers[position]!.name;
          if (ms !== undefined) result.tierMs.get(name)!.push(ms);
          if (servedOld) result.servedOld.set(name, result.servedOld.get(name)! + 1);
        }
        const all = shown.map(({ ms }) => ms);
        if (all.every((ms) => ms !== undefined)) result.everyTierMs.push(Math.max(...(all as number[])));
        else result.unseen += 1;
      })(),
    );
  }
  await Promise.all(followed);
  return result;
}
