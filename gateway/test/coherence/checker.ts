// The judge of a coherence run: a pure function of the recorded history. The promise it checks
// (gateway/README.md, "Consistency"): a read that begins after a write was acknowledged never
// returns data older than that write; a write made in SQL counts as acknowledged once the bound
// of change capture has passed since its commit. Writes answered non-2xx or never answered are uncertain:
// what they wrote is a legal value for any later read, never a required one.
import { isSuccess, isUnanswered, type OperationRecord, type ReadRecord } from './history.js';

/** A read that returned a version older than a write acknowledged before it began. */
export interface StaleRead {
  read: ReadRecord;
  product: number;
  returnedVersion: number;
  /** The highest version acknowledged before the read began. */
  requiredVersion: number;
  /** Read start − acknowledgement of the oldest acknowledged write newer than what it returned. */
  lagMs: number;
}

/** A read that returned something no write can explain. */
export interface ImpossibleRead {
  read: ReadRecord;
  product: number;
  slogan: string | null;
  reason: string;
}

export interface CoherenceSummary {
  /** Reads made, and of them those that did not answer 2xx (not judged). */
  reads: number;
  readsFailed: number;
  /** Products seen by the reads that answered (a list page shows many). */
  observations: number;
  /** Observations that some acknowledged write constrained (a version above the initial one was required). */
  constrainedObservations: number;
  writesAcknowledged: number;
  /** Answered, but not 2xx or with GraphQL errors (a 503 when the write could not be announced, …). */
  writesRefused: number;
  /** Never answered: timed out, or the connection failed. */
  writesUnanswered: number;
  stale: number;
  maxLagMs: number;
  impossible: number;
}

export interface CoherenceReport {
  summary: CoherenceSummary;
  stale: StaleRead[];
  impossible: ImpossibleRead[];
}

/** A value a product may show: the initial one (version 0), or one a write attempted. */
interface KnownValue {
  version: number;
  /** When the earliest write of it was sent (-Infinity for the initial value). */
  sentAt: number;
}

/** One product's acknowledged writes in acknowledgement order, with the highest version acknowledged so far. */
interface Acknowledgements {
  ends: number[];
  versions: number[];
  highestSoFar: number[];
}

/** How many acknowledgements came strictly before `time` (binary search over `ends`). */
function acknowledgedBefore(acks: Acknowledgements, time: number): number {
  let low = 0;
  let high = acks.ends.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (acks.ends[middle]! < time) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A span of time (performance.now()) during which no gateway could reach the primary. */
export interface Outage {
  from: number;
  to: number;
}

/**
 * When a write made in SQL, committed at `committedAt`, must be visible: its bound counts only
 * while the primary answers (gateway/README.md, rule 11), so time the primary spent unreachable
 * within it is added.
 */
export function boundedDeadline(committedAt: number, boundMs: number, primaryOutages: readonly Outage[]): number {
  let deadline = committedAt + boundMs;
  for (const { from, to } of [...primaryOutages].sort((a, b) => a.from - b.from)) {
    if (from >= deadline) break;
    if (to > committedAt) deadline += to - Math.max(from, committedAt);
  }
  return deadline;
}

/**
 * Judges every read of `operations` against the acknowledged writes. `initial` holds each
 * product's slogan before the run (version 0); a product missing from it has no legal initial value.
 */
export function checkHistory(
  initial: ReadonlyMap<number, string>,
  operations: readonly OperationRecord[],
  primaryOutages: readonly Outage[] = [],
): CoherenceReport {
  const values = new Map<number, Map<string, KnownValue>>();
  const valuesOf = (product: number) => values.get(product) ?? values.set(product, new Map()).get(product)!;
  for (const [product, slogan] of initial) valuesOf(product).set(slogan, { version: 0, sentAt: -Infinity });

  const summary: CoherenceSummary = {
    reads: 0,
    readsFailed: 0,
    observations: 0,
    constrainedObservations: 0,
    writesAcknowledged: 0,
    writesRefused: 0,
    writesUnanswered: 0,
    stale: 0,
    maxLagMs: 0,
    impossible: 0,
  };
  const acknowledged = new Map<number, { end: number; version: number }[]>();
  for (const operation of operations) {
    if (operation.kind !== 'write') continue;
    const known = valuesOf(operation.product);
    const earlier = known.get(operation.slogan);
    if (!earlier || operation.start < earlier.sentAt) known.set(operation.slogan, { version: operation.version, sentAt: operation.start });
    if (operation.acknowledged) {
      summary.writesAcknowledged += 1;
      const list = acknowledged.get(operation.product) ?? acknowledged.set(operation.product, []).get(operation.product)!;
      const end =
        operation.visibleWithinMs === undefined ? operation.end : boundedDeadline(operation.end, operation.visibleWithinMs, primaryOutages);
      list.push({ end, version: operation.version });
    } else if (isUnanswered(operation.outcome)) {
      summary.writesUnanswered += 1;
    } else {
      summary.writesRefused += 1;
    }
  }
  const acks = new Map<number, Acknowledgements>();
  for (const [product, list] of acknowledged) {
    list.sort((a, b) => a.end - b.end);
    let highest = 0;
    acks.set(product, {
      ends: list.map((ack) => ack.end),
      versions: list.map((ack) => ack.version),
      highestSoFar: list.map((ack) => (highest = Math.max(highest, ack.version))),
    });
  }

  const stale: StaleRead[] = [];
  const impossible: ImpossibleRead[] = [];
  for (const read of operations) {
    if (read.kind !== 'read') continue;
    summary.reads += 1;
    if (!isSuccess(read.outcome)) {
      summary.readsFailed += 1;
      continue;
    }
    for (const { product, slogan } of read.observed) {
      summary.observations += 1;
      const known = slogan === null ? undefined : values.get(product)?.get(slogan);
      if (!known) {
        const reason = slogan === null ? 'the answer did not hold the product' : 'a value no write ever sent';
        impossible.push({ read, product, slogan, reason });
        continue;
      }
      if (known.sentAt > read.end) {
        impossible.push({ read, product, slogan, reason: `version ${known.version} was sent only after the read ended` });
        continue;
      }
      const productAcks = acks.get(product);
      const before = productAcks ? acknowledgedBefore(productAcks, read.start) : 0;
      const requiredVersion = before > 0 ? productAcks!.highestSoFar[before - 1]! : 0;
      if (requiredVersion > 0) summary.constrainedObservations += 1;
      if (known.version >= requiredVersion) continue;
      let oldestNewer = Infinity;
      for (let index = 0; index < before; index += 1) {
        if (productAcks!.versions[index]! > known.version) oldestNewer = Math.min(oldestNewer, productAcks!.ends[index]!);
      }
      stale.push({ read, product, returnedVersion: known.version, requiredVersion, lagMs: read.start - oldestNewer });
    }
  }
  summary.stale = stale.length;
  summary.maxLagMs = stale.reduce((max, read) => Math.max(max, read.lagMs), 0);
  summary.impossible = impossible.length;
  return { summary, stale, impossible };
}

/** One line with every count of the summary. */
export function formatSummary(summary: CoherenceSummary): string {
  const writes = summary.writesAcknowledged + summary.writesRefused + summary.writesUnanswered;
  return (
    `reads ${summary.reads} (${summary.readsFailed} failed), observations ${summary.observations} ` +
    `(${summary.constrainedObservations} after an acknowledged write), writes ${writes} ` +
    `(acknowledged ${summary.writesAcknowledged}, refused ${summary.writesRefused}, unanswered ${summary.writesUnanswered}), ` +
    `stale ${summary.stale} (max lag ${Math.round(summary.maxLagMs)} ms), impossible ${summary.impossible}`
  );
}

/** Stale reads counted by what kind of read and which gateway, most first. */
export function staleByLabel(stale: readonly StaleRead[]): string {
  const counts = new Map<string, number>();
  for (const { read } of stale) {
    const key = `${read.label} via ${read.gateway}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([label, count]) => `${label}: ${count}`)
    .join(', ');
}

/** One stale read, its times relative to `origin` (the run's start). */
export function formatStaleRead(stale: StaleRead, origin: number): string {
  const { read } = stale;
  return (
    `product ${stale.product}: ${read.label} ${read.path} via ${read.gateway} at ${((read.start - origin) / 1000).toFixed(3)} s ` +
    `returned v${stale.returnedVersion}, v${stale.requiredVersion} was acknowledged before it began (lag ${Math.round(stale.lagMs)} ms)`
  );
}

/** One impossible read, its times relative to `origin`. */
export function formatImpossibleRead(impossible: ImpossibleRead, origin: number): string {
  const { read } = impossible;
  return (
    `product ${impossible.product}: ${read.label} ${read.path} via ${read.gateway} at ${((read.start - origin) / 1000).toFixed(3)} s ` +
    `returned ${JSON.stringify(impossible.slogan)}: ${impossible.reason}`
  );
}
