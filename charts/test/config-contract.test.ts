// The gateway's configuration contract has one definition (gateway/src/config.ts); the chart
// values, their schema and the README tables are written from it by `npm run config-docs`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '@catalog/gateway';
import { chartKey, chartSettings, renderContract } from '../../scripts/config-contract.js';
import { Helm, REPO_ROOT } from './support/chart.js';

const helm = new Helm();

test('every generated copy of the contract is up to date (run `npm run config-docs` after changing gateway/src/config.ts)', () => {
  for (const [path, expected] of renderContract()) {
    assert.equal(readFileSync(join(REPO_ROOT, path), 'utf8'), expected, `${path} is stale`);
  }
});

test('the ConfigMap names each chart value after its variable (cacheTtlSeconds → CACHE_TTL_SECONDS)', async () => {
  const rendered = await helm.template({});
  for (const { env, key } of chartSettings()) {
    assert.equal(chartKey(env), key);
    assert.match(rendered, new RegExp(`\\n  ${env}: "`), `${env} is in the gateway ConfigMap`);
  }
});

/** Values the gateway refuses at start-up must fail `helm template` too, naming the value. */
const REFUSED: Array<[string, number | string | boolean]> = [
  ['bodyLimitBytes', 100],
  ['dbPoolMax', 5000],
  ['cacheTtlSeconds', 999999],
  ['graphqlMaxDepth', 500],
  ['logLevel', 'loud'],
  ['graphqlIntrospection', 'yes'],
  ...chartSettings()
    .filter(({ schema }) => schema.type === 'integer')
    .flatMap(({ key, schema }) => [
      [key, (schema.maximum as number) + 1] as [string, number],
      [key, (schema.minimum as number) - 1] as [string, number],
    ]),
];

describe('values the gateway refuses are refused by helm with the same bound', () => {
  for (const [key, value] of REFUSED) {
    test(`gateway.config.${key}: ${JSON.stringify(value)}`, async () => {
      const setting = chartSettings().find((candidate) => candidate.key === key)!;
      assert.throws(() => loadConfig({ [setting.env]: String(value) }), new RegExp(setting.env), 'the gateway refuses it');
      await assert.rejects(helm.template({ gateway: { config: { [key]: value } } }), (error: Error) => {
        assert.match(error.message, new RegExp(`gateway[./]config[./]${key}\\b`), 'helm names the value');
        return true;
      });
    });
  }

  test('a value inside the bounds renders', async () => {
    await helm.template({ gateway: { config: { bodyLimitBytes: 1_048_576, graphqlIntrospection: true } } });
  });
});
