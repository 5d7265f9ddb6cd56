// The arithmetic under the replicas' rotation, without servers: WAL positions, lag as time, the
// rules a replica's polls are judged by, and the settings. The same rules against a real primary
// and streaming replicas are in routing.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { formatLsn, LSN_MAX, onTimeline, parseLsn, timelineOf, timelineOfPosition } from '../../src/db/lsn.js';
import { POLL_STALE_MS, ReplicaHealth, type ReplicaSample } from '../../src/db/replica-health.js';
import { HISTORY_MS, WalHistory } from '../../src/db/wal-history.js';

describe('WAL positions', () => {
  it('parse from X/Y hexadecimal into bigints that compare as positions', () => {
    assert.equal(parseLsn('0/0'), 0n);
    assert.equal(parseLsn('0/3024668'), 0x3024668n);
    assert.equal(parseLsn('16/B374D848'), 0x16_b374d848n);
    assert.equal(parseLsn('ffffffff/ffffffff'), 0xffff_ffff_ffff_ffffn);
    // The high half counts more than any low half: string order would get this wrong.
    assert.ok(parseLsn('1/0') > parseLsn('0/FFFFFFFF'));
    assert.ok(parseLsn('A/0') > parseLsn('9/FFFFFFFF'));
    for (const text of ['16/B374D848', '0/0', 'FFFFFFFF/FFFFFFFF']) assert.equal(formatLsn(parseLsn(text)), text);
  });

  it('refuse what is not a position', () => {
    for (const bad of ['', '0', '0/', '/0', '0/0/0', 'G/0', '0x1/0', '1/123456789', ' 0/0']) {
      assert.throws(() => parseLsn(bad), RangeError, bad);
    }
  });
});

describe('lag as time', () => {
  it('is how long ago the primary moved past the replayed position, 0 when it has not', () => {
    const history = new WalHistory();
    history.record(100n, 1_000);
    history.record(100n, 1_100); // unchanged: the first time seen counts
    history.record(200n, 1_200);
    history.record(300n, 1_500);
    assert.equal(history.latest, 300n);
    assert.equal(history.lagMs(300n, 9_000), 0, 'caught up: no lag however long the primary has been idle');
    assert.equal(history.lagMs(400n, 9_000), 0, 'ahead of the last sample');
    assert.equal(history.lagMs(250n, 2_000), 500, 'the primary was first seen past 250 at 1,500');
    assert.equal(history.lagMs(200n, 2_000), 500);
    assert.equal(history.lagMs(150n, 2_000), 800);
    assert.equal(history.lagMs(100n, 2_000), 800);
  });

  it('is unknown behind every position kept, or before the first: at least as old as the history', () => {
    const history = new WalHistory();
    assert.equal(history.lagMs(0n, 1_000), undefined, 'no sample of the primary yet');
    assert.equal(history.spanMs(1_000), 0);
    history.record(100n, 1_000);
    assert.equal(history.lagMs(50n, 3_000), undefined);
    assert.equal(history.spanMs(3_000), 2_000);
    assert.equal(history.lagMs(100n, 3_000), 0);
  });

  it('keeps HISTORY_MS of samples', () => {
    const history = new WalHistory();
    for (let at = 0; at <= HISTORY_MS * 2; at += 1_000) history.record(BigInt(at + 1), at);
    const now = HISTORY_MS * 2;
    assert.equal(history.spanMs(now), HISTORY_MS);
    assert.equal(history.lagMs(BigInt(HISTORY_MS - 1), now), undefined);
    assert.equal(history.lagMs(BigInt(HISTORY_MS + 1), now), HISTORY_MS - 1_000);
    assert.equal(history.lagMs(BigInt(now - 5_000), now), 5_000);
  });

  it('orders positions by timeline first: a promoted primary writes past every position of the old one', () => {
    const before = onTimeline(1, '0/5000000');
    const promotedAt = onTimeline(2, '0/4000000');
    assert.ok(promotedAt > before, 'a lower LSN on the new timeline is still later');
    assert.ok(onTimeline(1, 'FFFFFFFF/FFFFFFFF') < onTimeline(2, '0/0'));
    assert.ok(LSN_MAX >= onTimeline(0xffff_ffff, 'FFFFFFFF/FFFFFFFF'));
    assert.equal(timelineOfPosition(promotedAt), 2);
    assert.equal(formatLsn(promotedAt), '0/4000000 on timeline 2');
    const history = new WalHistory();
    history.record(before, 0);
    history.record(promotedAt, 100);
    assert.equal(history.timeline, 2);
    assert.equal(history.lagMs(onTimeline(1, '0/5000000'), 600), 500, 'a standby left on the old timeline is behind the new primary');
  });

  it('starts afresh when the primary is another server (its position went back)', () => {
    const history = new WalHistory();
    history.record(1_000n, 0);
    history.record(500n, 100);
    assert.equal(history.latest, 500n);
    assert.equal(history.lagMs(400n, 600), undefined);
    assert.equal(history.lagMs(500n, 600), 0);
  });
});

describe('a replica in the rotation', () => {
  const primary = () => {
    const history = new WalHistory();
    history.record(onFirstTimeline(100n), 0);
    return history;
  };
  /** Positions as a primary on its first timeline writes them. */
  const onFirstTimeline = (lsn: bigint) => (1n << 64n) | lsn;
  const standby = (replayed: bigint, streamedTimeline: ReplicaSample['streamedTimeline'] = 1, server = '10.0.0.2:5432') => ({
    server,
    inRecovery: true,
    replayed,
    streamedTimeline,
  });

  it('has answered a fresh poll, is in recovery and lags within the bound', () => {
    const history = primary();
    const health = new ReplicaHealth(history, 1_000);
    assert.equal(health.inRotation(0), false, 'not polled yet');
    assert.equal(health.replayedLsn(), 0n);
    health.answered(standby(onFirstTimeline(100n)), 0, 10);
    assert.equal(health.inRotation(20), true);
    assert.equal(health.replayedLsn(), onFirstTimeline(100n));
    history.record(onFirstTimeline(200n), 100);
    assert.equal(health.inRotation(1_100), true, 'lag 1,000 ms: at the bound');
    assert.equal(health.inRotation(1_101), false);
    assert.match(health.outOfRotationBecause(1_101)!, /replay lag 1001 ms exceeds 1000 ms/);
    health.answered(standby(onFirstTimeline(200n)), 1_050, 1_102);
    assert.equal(health.inRotation(1_103), true, 'caught up');
    assert.equal(health.inRotation(1_102 + POLL_STALE_MS + 1), false, 'not heard from for too long');
  });

  it('stays out while its lag is unknown: behind the first position the primary was seen at', () => {
    const history = new WalHistory();
    const health = new ReplicaHealth(history, 1_000);
    health.answered(standby(onFirstTimeline(50n)), 0, 10);
    assert.match(health.outOfRotationBecause(20)!, /lag unknown/, 'the primary not polled yet');
    history.record(onFirstTimeline(100n), 30);
    assert.match(health.outOfRotationBecause(40)!, /behind every position the primary was seen at: lag unknown, at least 10 ms/);
    assert.equal(health.lagMs(40), 10, 'reported as the least it can be');
    health.answered(standby(onFirstTimeline(100n)), 40, 50);
    assert.equal(health.inRotation(60), true);
  });

  it('leaves on a failure until a poll sent after it answers', () => {
    const health = new ReplicaHealth(primary(), 1_000);
    health.answered(standby(onFirstTimeline(100n)), 0, 10);
    health.failed(50);
    assert.equal(health.inRotation(60), false);
    health.answered(standby(onFirstTimeline(100n)), 40, 70);
    assert.equal(health.inRotation(80), false, 'that poll was sent before the failure');
    health.answered(standby(onFirstTimeline(100n)), 60, 90);
    assert.equal(health.inRotation(100), true);
  });

  it('is a standby, and never shows less than it was seen to have replayed', () => {
    const health = new ReplicaHealth(primary(), 1_000);
    health.answered({ server: '10.0.0.2:5432', inRecovery: false, replayed: null, streamedTimeline: null }, 0, 10);
    assert.match(health.outOfRotationBecause(20)!, /not in recovery/);
    health.answered(standby(onFirstTimeline(100n)), 20, 30);
    assert.equal(health.inRotation(40), true);
    health.answered(standby(onFirstTimeline(90n)), 40, 50); // restarted from an earlier point
    assert.match(health.outOfRotationBecause(60)!, /restarted/);
    health.answered(standby(onFirstTimeline(100n)), 60, 70);
    assert.equal(health.inRotation(80), true);
  });

  it('names the server its positions describe, and counts each move to another (a load-balanced address)', () => {
    const health = new ReplicaHealth(primary(), 1_000);
    assert.equal(health.polledServer, undefined);
    health.answered(standby(onFirstTimeline(100n)), 0, 10);
    assert.equal(health.polledServer, '10.0.0.2:5432');
    health.answered(standby(onFirstTimeline(100n)), 20, 30);
    assert.equal(health.serverChanges, 0, 'the same server polled again');
    health.answered(standby(onFirstTimeline(100n), 1, '10.0.0.3:5432'), 40, 50);
    assert.equal(health.polledServer, '10.0.0.3:5432');
    assert.equal(health.serverChanges, 1);
    // Behind the furthest position seen on the other: out until it passes it.
    health.answered(standby(onFirstTimeline(90n), 1, '10.0.0.2:5432'), 60, 70);
    assert.equal(health.serverChanges, 2);
    assert.equal(health.inRotation(80), false);
  });
});

describe('a replica after a failover', () => {
  it("follows the primary's timeline: streams it, or stays out naming why", () => {
    const history = new WalHistory();
    const health = new ReplicaHealth(history, 1_000);
    const sample = (streamedTimeline: ReplicaSample['streamedTimeline']) => ({
      server: '10.0.0.2:5432',
      inRecovery: true,
      replayed: onTimeline(typeof streamedTimeline === 'number' ? streamedTimeline : 0, '0/500'),
      streamedTimeline,
    });
    health.answered(sample(1), 0, 10);
    assert.match(health.outOfRotationBecause(20)!, /lag unknown/, 'the primary not polled yet');
    history.record(onTimeline(1, '0/500'), 15);
    assert.equal(health.inRotation(20), true);
    // Promoted elsewhere: this standby still streamed the old timeline when last polled.
    history.record(onTimeline(2, '0/400'), 30);
    assert.match(health.outOfRotationBecause(40)!, /streams timeline 1 while the primary is on timeline 2/);
    health.answered(sample(null), 40, 50);
    assert.match(health.outOfRotationBecause(60)!, /its WAL receiver streams nothing/);
    health.answered(sample('hidden'), 60, 70);
    assert.match(health.outOfRotationBecause(80)!, /needs pg_read_all_stats/);
    history.record(onTimeline(2, '0/600'), 80);
    health.answered({ ...sample(2), replayed: onTimeline(2, '0/600') }, 90, 100);
    assert.equal(health.inRotation(110), true, 'following the new primary');
  });

  it('reads the timeline from a WAL file name', () => {
    assert.equal(timelineOf('000000010000000000000003'), 1);
    assert.equal(timelineOf('0000000A0000000000000003'), 10);
    assert.throws(() => timelineOf('0/3000000'), /is not a WAL file name/);
  });
});

describe('read replica settings', () => {
  it('list replicas in order, with a lag bound', () => {
    const config = loadConfig({
      DATABASE_READ_URLS: ' postgres://r1/catalog , postgresql://r2:6432/catalog,',
      DATABASE_READ_MAX_LAG_MS: '750',
    });
    assert.deepEqual(config.DATABASE_READ_URLS, ['postgres://r1/catalog', 'postgresql://r2:6432/catalog']);
    assert.equal(config.DATABASE_READ_MAX_LAG_MS, 750);
    assert.deepEqual(loadConfig({}).DATABASE_READ_URLS, []);
  });

  it('refuse entries that are not Postgres URLs, duplicates and the primary itself, naming the entry', () => {
    const refused = (env: Record<string, string>, message: RegExp) =>
      assert.throws(
        () => loadConfig(env),
        (error) => error instanceof ConfigError && message.test(error.message),
      );
    refused({ DATABASE_READ_URLS: 'postgres://r1/c,not a url' }, /DATABASE_READ_URLS: entry 2 is not a URL/);
    refused({ DATABASE_READ_URLS: 'mysql://r1/c' }, /DATABASE_READ_URLS: entry 1 is not a postgres:\/\/ URL/);
    refused({ DATABASE_READ_URLS: 'postgres://r1/c,postgres://r1/c' }, /DATABASE_READ_URLS: entry 2 is listed twice/);
    refused({ DATABASE_URL: 'postgres://p/c', DATABASE_READ_URLS: 'postgres://r1/c,postgres://p/c' }, /entry 2 is DATABASE_URL itself/);
    refused({ DATABASE_READ_MAX_LAG_MS: '10' }, /DATABASE_READ_MAX_LAG_MS/);
    // Lag is measured against HISTORY_MS of the primary's positions: a bound must fit in it.
    refused({ DATABASE_READ_MAX_LAG_MS: String(HISTORY_MS / 2 + 1) }, /DATABASE_READ_MAX_LAG_MS/);
  });
});
