// ESLint (flat config): the recommended JavaScript and typescript-eslint rules, without type-aware linting
// (fast on two cores). The layer rules live in test/architecture.test.ts, formatting in Prettier.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-bench/', 'node_modules/', 'coverage/', 'memories/', 'scripts/model-eval/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // An eslint-disable comment that disables nothing is an error: no dead suppressions.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      globals: globals.node,
    },
    rules: {
      // `_name` marks a value left unused on purpose (destructuring it away).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
);
