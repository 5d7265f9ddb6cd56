import { test } from 'node:test';
import { typeCheck } from '../../scripts/test/typecheck.js';

test('the chart tests and their support code type-check', () => typeCheck('charts/test'));
