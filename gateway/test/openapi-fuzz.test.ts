import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { run } from '../../scripts/test/process.js';
import { WRITE_TOKEN, createFixtureDatabase, startListeningGateway } from './support/gateway.js';

/** Where npm test's prerequisites step (scripts/prerequisites/install-python-tools.sh) puts schemathesis. */
const VENV = process.env.CATALOG_PYTHON_VENV ?? join(homedir(), '.cache/catalog-gateway/python');
const SCHEMATHESIS = join(VENV, 'bin/schemathesis');
const CONFIG = fileURLToPath(new URL('fixtures/schemathesis.toml', import.meta.url));
const missing = existsSync(SCHEMATHESIS)
  ? undefined
  : `schemathesis is not installed in ${VENV}: run scripts/prerequisites/install-python-tools.sh (npm test does)`;
if (missing && process.env.CI === 'true') throw new Error(missing);

/**
 * Property-based fuzzing of the served OpenAPI document: schemathesis generates valid and
 * invalid requests for every operation (writes with the token) and checks every answer against
 * the document — no 5xx, documented statuses and content types, bodies matching their schemas,
 * valid data accepted, invalid data refused, undeclared methods answered 405.
 */
describe('the served OpenAPI document holds under property-based fuzzing', { skip: missing }, () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase()));
  });
  after(() => app.close());

  it('0 server errors and 0 schema violations', { timeout: 300_000 }, async () => {
    const { code, stdout, stderr } = await run(
      SCHEMATHESIS,
      [
        '--config-file',
        CONFIG,
        'run',
        `${base}/docs/json`,
        '--checks',
        'all',
        '--max-examples',
        '40',
        '--seed',
        '20261123',
        '--generation-allow-x00',
        'false',
        '--header',
        `Authorization: Bearer ${WRITE_TOKEN}`,
        '--request-timeout',
        '10',
        '--output-truncate',
        'true',
        '--workers',
        '1',
        // From the temp dir: schemathesis keeps a .schemathesis/ cache in its working directory.
      ],
      { cwd: tmpdir(), env: { NO_COLOR: '1' } },
    );
    const output = stdout + stderr;
    const summary = output
      .split('\n')
      .filter((line) => /SUMMARY|Failures|❌|✅|generated|passed|failed/.test(line))
      .join('\n');
    assert.equal(code, 0, `schemathesis found problems:\n${output.slice(-6_000)}`);
    assert.match(output, /\d+ generated/, 'cases were generated');
    console.log(summary);
  });
});
