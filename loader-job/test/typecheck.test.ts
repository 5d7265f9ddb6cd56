import { test } from 'node:test';
import { typeCheck } from '../../scripts/test/typecheck.js';

test('tsc accepts the loader tests against the loader sources', () => typeCheck('loader-job/test'));
test('tsc accepts the loader benchmark against the loader sources', () => typeCheck('loader-job/bench'));
