// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Node built-ins and I/O libraries: workflow code runs in Temporal's deterministic sandbox. */
const forbiddenInWorkflows = [
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  'ky',
  'openpgp',
  'archiver',
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/worker',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', 'bench-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: forbiddenInWorkflows.map((name) => ({
            name,
            message: 'Workflow code is deterministic: do I/O in activities/, not in workflows/.',
          })),
          patterns: [
            {
              group: ['**/activities/**', '**/eca/**', '**/simulator/**', '**/workers/**', '**/client/**'],
              allowTypeImports: true,
              message: 'Workflow code may import only types from the I/O layers.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'Workflows must not read the environment.' },
        { name: 'setInterval', message: 'Use durable timers (sleep / condition) in workflows.' },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // mocha's `this` and chai-less assertions are fine here; unbound methods are common in assertions.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
