import { test } from 'node:test';
import { typeCheck } from '../../scripts/test/typecheck.js';

test('tsc accepts the gateway tests against the gateway sources', () => typeCheck('gateway/test'));
test('tsc accepts the gateway benchmark against the gateway sources', () => typeCheck('gateway/bench'));
test('tsc accepts the GraphQL IDE page script and its build', () => typeCheck('gateway/ide'));
