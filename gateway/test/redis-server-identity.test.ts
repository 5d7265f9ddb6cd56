import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { startRedis } from '../../scripts/test/redis.js';
import { waitFor } from '../../scripts/test/wait.js';
import { connectRedis, ServerIdentity } from '../src/redis/connection.js';

// Without its server's run_id a gateway announces nothing (writes refused, captured changes claimed
// and given back, no lease), however healthy the connection: the identity must not depend on the
// first INFO after a connect being answered within the command timeout.
test("a connection learns its server's run_id once Redis answers, though its first INFO after connecting went unanswered", async () => {
  const redis = await startRedis();
  const client = connectRedis({ location: { url: redis.url }, commandTimeoutMs: 200 }, pino({ level: 'silent' }), 'test');
  try {
    if (client.status !== 'ready') await once(client, 'ready');
    redis.freeze();
    const identity = new ServerIdentity(client);
    await sleep(600);
    assert.equal(identity.runId, undefined, 'a frozen server told its run_id');
    redis.thaw();
    const runId = await waitFor('the run_id to be learnt', async () => identity.runId, 5_000, 50);
    assert.match(await redis.command('INFO', 'server'), new RegExp(`run_id:${runId}`));
  } finally {
    redis.thaw();
    client.disconnect();
    await redis.stop();
  }
});
