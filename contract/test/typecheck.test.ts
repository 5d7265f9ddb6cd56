import { test } from 'node:test';
import { typeCheck } from '../../scripts/test/typecheck.js';

test('tsc accepts the contract tests against the contract sources', () => typeCheck('contract/test'));
