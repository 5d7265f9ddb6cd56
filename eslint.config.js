// The repo's linter: typescript-eslint's recommended rules over every TypeScript and JavaScript
// file. `npm run lint` runs it with the type-checker; scripts/test/lint.test.ts runs it in CI.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/dist/', 'charts/catalog-gateway/', '**/*.d.ts'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
    rules: {
      // `_`-prefixed names mark parameters a signature requires but the body does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A closure declared before the single assignment may read the variable (a load report's
      // timestamps), so the declaration cannot become a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The chart tests walk rendered Kubernetes manifests, untyped YAML, by path.
    files: ['charts/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // k6 scripts run in k6's own JavaScript runtime, which provides __ENV and __VU.
    files: ['k6/lib/**/*.js', 'k6/scenarios/**/*.js', 'charts/test/support/real-cluster/service-load.js'],
    languageOptions: { globals: { __ENV: 'readonly', __VU: 'readonly', __ITER: 'readonly' } },
  },
);
