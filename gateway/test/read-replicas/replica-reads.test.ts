// Where a read runs (coherence/replica-reads.ts, README "Consistency", rule 8), decided over
// targets that stand for a replica and the primary: no server here, only the decision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReadRequirements } from '../../src/coherence/read-requirements.js';
import { ReplicaReads } from '../../src/coherence/replica-reads.js';
import type { ReadTarget, ReadTargets, ReplicaReadFallback } from '../../src/db/read-targets.js';

/** A target whose polls reached another server `changes` times so far. */
const target = (name: string) => {
  const state = { changes: 0 };
  const readTarget = { name, replayedLsn: () => 100n, serverChanges: () => state.changes } as unknown as ReadTarget;
  return { readTarget, state };
};

function readsOver(replicaMayAnswer: boolean) {
  const primary = target('primary');
  const replica = target('replica-1');
  const targets = {
    primary: primary.readTarget,
    replicas: [replica.readTarget],
    pickReplica: () => replica.readTarget,
  } as unknown as ReadTargets;
  const requirements = { replicaMayAnswer: () => replicaMayAnswer } as unknown as ReadRequirements;
  const fallbacks: ReplicaReadFallback[] = [];
  const reads = new ReplicaReads(
    targets,
    requirements,
    () => true,
    (reason) => fallbacks.push(reason),
  );
  return { reads, replica, fallbacks };
}

describe('a read meant for a replica', () => {
  it("is the replica's answer when the polls stayed on one server and it had replayed what the answer depends on", async () => {
    const { reads, fallbacks } = readsOver(true);
    const answer = await reads.run(async (on) => ({ tags: [], on: on.name }));
    assert.equal(answer.on, 'replica-1');
    assert.deepEqual(fallbacks, []);
  });

  it("is read again on the primary when the replica's polls moved to another server meanwhile", async () => {
    const { reads, replica, fallbacks } = readsOver(true);
    const answer = await reads.run(async (on) => {
      // The position sampled before this read describes a server its later statements may not reach.
      if (on.name === 'replica-1') replica.state.changes += 1;
      return { tags: [], on: on.name };
    });
    assert.equal(answer.on, 'primary');
    assert.deepEqual(fallbacks, ['server_changed']);
  });

  it('is read again on the primary when the replica had not replayed a write it depends on', async () => {
    const { reads, fallbacks } = readsOver(false);
    const answer = await reads.run(async (on) => ({ tags: ['product:1'], on: on.name }));
    assert.equal(answer.on, 'primary');
    assert.deepEqual(fallbacks, ['behind_writes']);
  });
});
