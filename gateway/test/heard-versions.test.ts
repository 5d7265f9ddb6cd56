import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeardVersions } from '../src/coherence/heard-versions.js';

const at = (seq: number, epoch = 'e1') => ({ epoch, seq });

describe('what a replica heard judges a Redis entry (rule 1 in the process)', () => {
  it('knows nothing before it first reached the clock', () => {
    assert.equal(new HeardVersions().judge(at(5), ['product:1']), 'unknown');
  });

  it('finds an entry stale once one of its tags was announced after its data was read, valid otherwise', () => {
    const heard = new HeardVersions();
    heard.restartAt(at(10));
    heard.heard(at(11), ['product:1', 'products']);
    assert.equal(heard.judge(at(10), ['product:1']), 'stale');
    assert.equal(heard.judge(at(10), ['product:2', 'products']), 'stale');
    assert.equal(heard.judge(at(11), ['product:1', 'products']), 'valid');
    assert.equal(heard.judge(at(10), ['product:2']), 'valid');
    // An older announcement heard late (its writer's own phase came first) changes nothing.
    heard.heard(at(9), ['product:1']);
    assert.equal(heard.judge(at(10), ['product:1']), 'stale');
  });

  it('leaves to Redis what it cannot know: another epoch, or a read from before where it (re)started', () => {
    const heard = new HeardVersions();
    heard.restartAt(at(10));
    assert.equal(heard.judge(at(12, 'e2'), ['product:1']), 'unknown');
    assert.equal(heard.judge(at(9), ['product:1']), 'unknown');
    heard.heard(at(3, 'e0'), ['product:1']);
    assert.equal(heard.judge(at(10), ['product:1']), 'valid');
    heard.restartAt(at(20));
    assert.equal(heard.judge(at(15), ['product:9']), 'unknown');
  });

  it('after a catalog swap, judges nothing of the swapped epoch again, even if it restarts in it', () => {
    const heard = new HeardVersions();
    heard.restartAt(at(10));
    heard.swapped();
    assert.equal(heard.judge(at(10), ['product:1']), 'unknown');
    heard.restartAt(at(12));
    assert.equal(heard.judge(at(12), ['product:1']), 'unknown');
    heard.restartAt(at(0, 'e2'));
    assert.equal(heard.judge(at(0, 'e2'), ['product:1']), 'valid');
  });

  it('folds what it forgets into its floor: older reads go to Redis, never wrongly valid', () => {
    const heard = new HeardVersions();
    heard.restartAt(at(0));
    for (let seq = 1; seq <= 50_001; seq += 1) heard.heard(at(seq), [`product:${seq}`]);
    assert.equal(heard.judge(at(50_000), ['product:50001']), 'unknown');
    assert.equal(heard.judge(at(50_001), ['product:50001']), 'valid');
    heard.heard(at(50_002), ['product:7']);
    assert.equal(heard.judge(at(50_001), ['product:7']), 'stale');
  });
});
