import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const load = (env: Record<string, string>) => loadConfig({ RATE_LIMIT_ENABLED: 'true', ...env });

/** The message of the ConfigError `env` raises. */
function problemsOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

describe('rate-limit settings, checked at start-up', () => {
  it('names every problem of RATE_LIMIT_CLIENTS and RATE_LIMIT_TRUSTED_PROXIES at once', () => {
    const message = problemsOf({
      RATE_LIMIT_CLIENTS: JSON.stringify({
        clients: {
          'no spaces please': { keySha256: 'a'.repeat(64) },
          shop: { keySha256: 'not-a-hash', requests: -5, colour: 'blue' },
          internal: { keySha256: 'b'.repeat(64), exempt: true, requests: 10 },
          twin: { keySha256: 'A'.repeat(64) },
        },
        classes: { robots: { requests: 1 }, ip: { graphqlCost: 1.5 } },
      }),
      RATE_LIMIT_TRUSTED_PROXIES: '10.0.0.0/33, proxy.internal, 2001:db8::/129, 192.168.0.0/16',
      RATE_LIMIT_API_KEY_HEADER: 'x api key',
    });
    for (const problem of [
      /RATE_LIMIT_CLIENTS: clients\.no spaces please: client names are 1-64 letters/,
      /RATE_LIMIT_CLIENTS: clients\.shop\.keySha256: must be the 64 hex digits/,
      /RATE_LIMIT_CLIENTS: clients\.shop\.requests: Number must be greater than 0/,
      /RATE_LIMIT_CLIENTS: clients\.shop: Unrecognized key\(s\) in object: 'colour'/,
      /RATE_LIMIT_CLIENTS: clients\.internal: an exempt entry has no limits/,
      /RATE_LIMIT_CLIENTS: clients\.twin\.keySha256: the same key as "no spaces please"/,
      /RATE_LIMIT_CLIENTS: classes: Unrecognized key\(s\) in object: 'robots'/,
      /RATE_LIMIT_CLIENTS: classes\.ip\.graphqlCost: Expected integer/,
      /RATE_LIMIT_TRUSTED_PROXIES: "10\.0\.0\.0\/33": the prefix length must be 0\.\.32/,
      /RATE_LIMIT_TRUSTED_PROXIES: "proxy\.internal" is not an IP address or CIDR block/,
      /RATE_LIMIT_TRUSTED_PROXIES: "2001:db8::\/129": the prefix length must be 0\.\.128/,
      /RATE_LIMIT_API_KEY_HEADER: must be an HTTP header name/,
    ]) {
      assert.match(message, problem);
    }
    assert.doesNotMatch(message, /192\.168/);
  });

  it('refuses text that is not JSON, and a cost budget one allowed operation could exceed', () => {
    assert.match(problemsOf({ RATE_LIMIT_CLIENTS: '{"clients": ' }), /RATE_LIMIT_CLIENTS: not JSON: /);
    const message = problemsOf({
      GRAPHQL_MAX_COMPLEXITY: '1000',
      RATE_LIMIT_GRAPHQL_COST: '999',
      RATE_LIMIT_CLIENTS: JSON.stringify({ clients: { shop: { keySha256: 'c'.repeat(64), graphqlCost: 500 } } }),
    });
    assert.match(message, /RATE_LIMIT_GRAPHQL_COST: a GraphQL cost budget of 999 is below GRAPHQL_MAX_COMPLEXITY \(1000\)/);
    assert.match(message, /RATE_LIMIT_CLIENTS: clients\.shop\.graphqlCost: a GraphQL cost budget of 500 is below GRAPHQL_MAX_COMPLEXITY/);
    // Off, the budgets are not in force and not checked.
    assert.doesNotThrow(() => loadConfig({ RATE_LIMIT_GRAPHQL_COST: '999' }));
  });

  it('is off by default and reads a valid configuration', () => {
    assert.equal(loadConfig({}).RATE_LIMIT_ENABLED, false);
    const config = load({
      RATE_LIMIT_API_KEY_HEADER: 'X-Client-Key',
      RATE_LIMIT_TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8, 192.0.2.1',
      RATE_LIMIT_CLIENTS: JSON.stringify({
        clients: { shop: { keySha256: 'D'.repeat(64), requests: 60 } },
        classes: { ip: { exempt: false } },
      }),
    });
    assert.equal(config.RATE_LIMIT_API_KEY_HEADER, 'x-client-key');
    assert.equal(config.RATE_LIMIT_TRUSTED_PROXIES.length, 3);
    assert.deepEqual(config.RATE_LIMIT_CLIENTS.clients.shop, { keySha256: 'd'.repeat(64), requests: 60 });
  });
});
