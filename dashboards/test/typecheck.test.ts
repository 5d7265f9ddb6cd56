import { test } from 'node:test';
import { typeCheck } from '../../scripts/test/typecheck.js';

// The dashboard builders are checked against the foundation SDK's types, the k6 runner and
// report against node's and the DOM's.
test('dashboards/ typechecks', () => typeCheck('dashboards'));
test('k6/ typechecks', () => typeCheck('k6'));
