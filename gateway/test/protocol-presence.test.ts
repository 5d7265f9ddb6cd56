import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEASE_MS } from '../src/coherence/lease.js';
import { PRESENCE_MS, ProtocolPresence } from '../src/coherence/protocol-presence.js';

const OURS = 'catalog:3';
const NEXT = 'catalog:4';

/** A member beating every 250 ms from `from`, each beat answered 5 ms after it was sent. */
function beating(presence: ProtocolPresence, from: number, until: number, others: () => Map<string, string>) {
  let last = presence.observe(from, from + 5, new Map([[OURS, presence.nextBeat().token], ...others()]));
  for (let sent = from + 250; sent <= until; sent += 250) {
    last = presence.observe(sent, sent + 5, new Map([[OURS, presence.nextBeat().token], ...others()]));
  }
  return last;
}

describe('protocol presence (rule 12)', () => {
  it('counts another protocol live from its first token until a renewal sent PRESENCE_MS after that answer shows it unchanged', () => {
    const presence = new ProtocolPresence(OURS, 'member-a');
    assert.deepEqual(presence.observe(0, 5, new Map([[NEXT, 't1']])), { live: 1, gone: [] });
    assert.deepEqual(
      beating(presence, 250, PRESENCE_MS, () => new Map([[NEXT, 't1']])),
      { live: 1, gone: [] },
    );
    assert.deepEqual(presence.observe(PRESENCE_MS + 5, PRESENCE_MS + 10, new Map([[NEXT, 't1']])), {
      live: 0,
      gone: [[NEXT, 't1']],
    });
  });

  it('takes an entry gone from the hash for an unchanged one (the hash may be evicted or lost), and a new token for a live protocol', () => {
    const presence = new ProtocolPresence(OURS, 'member-a');
    presence.observe(0, 5, new Map([[NEXT, 't1']]));
    assert.deepEqual(presence.observe(1_000, 1_005, new Map()), { live: 1, gone: [] });
    assert.deepEqual(presence.observe(2_900, 2_905, new Map([[NEXT, 't2']])), { live: 1, gone: [] });
    // Measured from the answer that first showed t2, not from t1's.
    assert.deepEqual(presence.observe(5_000, 5_005, new Map()), { live: 1, gone: [] });
    assert.deepEqual(presence.observe(2_905 + PRESENCE_MS, 2_910 + PRESENCE_MS, new Map()), { live: 0, gone: [[NEXT, 't2']] });
  });

  it('forgets a protocol counted gone only while its token is the one that ended', () => {
    const presence = new ProtocolPresence(OURS, 'member-a');
    presence.observe(0, 5, new Map([[NEXT, 't1']]));
    presence.observe(PRESENCE_MS + 5, PRESENCE_MS + 10, new Map([[NEXT, 't2']]));
    presence.forget([[NEXT, 't1']]);
    assert.deepEqual(presence.observe(PRESENCE_MS + 250, PRESENCE_MS + 255, new Map([[NEXT, 't2']])), { live: 1, gone: [] });
    presence.forget([[NEXT, 't2']]);
    assert.deepEqual(presence.observe(PRESENCE_MS + 500, PRESENCE_MS + 505, new Map()), { live: 0, gone: [] });
  });

  it('never beats with a token twice', () => {
    const presence = new ProtocolPresence(OURS, 'member-a');
    const tokens = new Set(Array.from({ length: 1_000 }, () => presence.nextBeat().token));
    assert.equal(tokens.size, 1_000);
    assert.equal(presence.nextBeat().protocol, OURS);
  });

  describe('when a write may be acknowledged', () => {
    it('not before the first beat, then a lease after its answer', () => {
      const presence = new ProtocolPresence(OURS, 'member-a');
      assert.equal(presence.acknowledgeableIn(0, 0), undefined);
      presence.observe(100, 110, new Map());
      assert.equal(presence.acknowledgeableIn(120, 120), 110 + LEASE_MS - 120);
      assert.equal(presence.acknowledgeableIn(120, 110 + LEASE_MS), 0);
    });

    it('at once while the run of beats is unbroken from a lease before and reaches the commit', () => {
      const presence = new ProtocolPresence(OURS, 'member-a');
      beating(presence, 0, 5_000, () => new Map());
      assert.equal(presence.acknowledgeableIn(5_100, 5_120), 0);
    });

    it('not for a commit later than the run reaches (its last beat sent too long before), until a new run is a lease old', () => {
      const presence = new ProtocolPresence(OURS, 'member-a');
      beating(presence, 0, 2_000, () => new Map());
      // Beats stopped at 2,000 (Redis unreachable, the process paused): a commit at 5,000 is past them.
      assert.equal(presence.acknowledgeableIn(5_000, 5_010), undefined);
      // A beat answered after the gap starts a new run: other protocols may have counted this one gone.
      presence.observe(6_000, 6_010, new Map());
      assert.equal(presence.acknowledgeableIn(5_000, 6_020), 6_010 + LEASE_MS - 6_020);
    });
  });
});
