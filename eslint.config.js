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

/**
 * The layers, from the floor up (docs/architecture.md): each folder may import only the folders listed
 * for it, so no arrow runs from a lower folder to a higher one. scripts/ and test/ stand above all.
 */
const layers = {
  eca: ['domain'],
  webapi: ['domain'],
  codec: [],
  domain: [],
  brokerage: ['eca', 'webapi', 'domain'],
  runtime: ['eca', 'webapi', 'brokerage', 'codec', 'domain'],
  workflows: ['codec', 'domain'],
  activities: ['eca', 'webapi', 'brokerage', 'codec', 'domain', 'runtime', 'workflows'],
  workers: ['eca', 'webapi', 'brokerage', 'codec', 'domain', 'runtime', 'workflows', 'activities'],
  client: ['eca', 'webapi', 'brokerage', 'codec', 'domain', 'runtime', 'workflows'],
  api: ['eca', 'webapi', 'brokerage', 'codec', 'domain', 'runtime', 'workflows', 'client'],
  simulator: ['eca', 'webapi'],
};
const projectFolders = [...Object.keys(layers), 'scripts', 'test'];

/**
 * The `no-restricted-imports` patterns that keep `folder` on its layer.
 * @param {keyof typeof layers} folder
 */
function layerPatterns(folder) {
  /** @type {string[]} */
  const below = layers[folder];
  const allowed = new Set([folder, ...below]);
  return [
    {
      group: projectFolders.filter((other) => !allowed.has(other)).map((other) => `**/${other}/**`),
      message: `${folder}/ may import only ${below.join(', ') || 'npm packages'} (docs/architecture.md, the layers).`,
    },
  ];
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', 'bench-results/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', 'bin/*.js', 'examples/*.mjs', 'test/*.cjs'],
          // The configuration files outside the TypeScript project (the mocha configurations among them).
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16,
        },
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
  .../** @type {Array<keyof typeof layers>} */ (Object.keys(layers))
    .filter((folder) => folder !== 'workflows')
    .map((folder) => ({
      files: [`${folder}/**/*.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: layerPatterns(folder) }] },
    })),
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...forbiddenInWorkflows.map((name) => ({
              name,
              message: 'Workflow code is deterministic: do I/O in activities/, not in workflows/.',
            })),
            {
              name: '@temporalio/workflow',
              importNames: ['proxyLocalActivities'],
              message:
                'No local activities: their results can reach a workflow a task late (workflows/application/deadlines.ts).',
            },
          ],
          patterns: layerPatterns('workflows'),
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
    // Units a reader can hold in mind (docs/architecture.md, rules). A data file over the file limit
    // says why in its header and disables the rule there.
    files: ['**/*.ts'],
    ignores: ['test/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // mocha's configuration in JavaScript is CommonJS (mocha requires it).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
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
