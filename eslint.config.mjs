// ESLint (flat config) with typescript-eslint: the rules that matter here, zero warnings on main.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// The Temporal client's call context, switched off again after each use: infra/temporal-connection.ts.
const callContext = ['withDeadline', 'withMetadata', 'withAbortSignal'].map((property) => ({
  property,
  message: 'use withCallDeadline (infra/temporal-connection.ts): it switches the call context off again',
}));
// config/env.ts reads the environment once, checks every variable and documents it (docs/operations.md);
// a read anywhere else is a setting nobody validates or documents. Tests, harness, bench and scripts may.
const processEnv = { object: 'process', property: 'env', message: 'read settings from Config (config/env.ts); the host environment is Config.processEnv' };
const productFolders = ['api', 'activities', 'cli', 'db', 'domain', 'infra', 'services', 'turns', 'workers', 'workflows'].map((dir) => `${dir}/**/*.ts`);

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'build/**', 'build.*/**', '.data/**', 'test-artifacts/**', 'sdk/dist/**', '**/*.js', '**/*.mjs', '**/*.cjs', 'sdk/tsup.config.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './sdk/tsconfig.json', './embed/tsconfig.json', './test/browser/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.json', 'sdk/tsconfig.json', 'embed/tsconfig.json'], noWarnOnMultipleProjects: true })] },
    rules: {
      // A promise nobody awaits or handles is how a rejected append once killed the worker.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-properties': ['error', ...callContext],
    },
  },
  {
    // One rule's options replace, not add to, the ones above: both lists, for the product's folders.
    files: productFolders,
    rules: { 'no-restricted-properties': ['error', ...callContext, processEnv] },
  },
  {
    files: ['infra/temporal-connection.ts'],
    rules: { 'no-restricted-properties': ['error', processEnv] },
  },
  {
    // Workflows are deterministic: no Node built-ins, no I/O, and activities by type only (Temporal's guidance).
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinModules.flatMap((name) => [name, `node:${name}`]).map((name) => ({ name, message: 'workflows run in a deterministic sandbox: no Node built-ins' })),
          patterns: [
            { group: ['../activities', '../activities/*', '../activities/**'], allowTypeImports: true, message: 'import activities as types only (proxyActivities)' },
            { group: ['../db/**', '../infra/**', '../api/**', '../services/**'], message: 'workflows do no I/O' },
          ],
        },
      ],
    },
  },
  {
    // The API (services/) and the worker (activities/) share code through turns/, db/ and domain/,
    // never each other: an `api` process loads no worker code, a `worker` none of the API's.
    // The lower layers point down only: db/ and turns/ import neither infra/ (the adapters, which
    // import db/) nor workflows/, and infra/ knows workflows by their contracts in domain/runs/.
    // Type-only imports count too: a type's arrow is still an arrow a reader follows.
    files: ['activities/**/*.ts', 'services/**/*.ts', 'turns/**/*.ts', 'db/**/*.ts', 'infra/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './activities', from: './services', message: 'activities import no services: shared code lives in turns/, db/ or domain/' },
            { target: './services', from: './activities', message: 'services import no activities: shared code lives in turns/, db/ or domain/' },
            { target: './turns', from: ['./services', './activities', './infra', './workflows'], message: 'turns/ is shared by services and activities: it imports neither, nor infra/ or workflows/' },
            { target: './db', from: ['./infra', './workflows', './turns', './services', './activities', './api', './workers'], message: 'db/ is the bottom layer above domain/: it imports none of the layers over it' },
            { target: './infra', from: ['./workflows', './activities', './services', './api', './workers'], message: 'infra/ adapters import db/ and domain/ only (workflows by their contracts in domain/runs/)' },
          ],
        },
      ],
    },
  },
  {
    // A tenant's document is parsed only in the extraction sandbox's child (docs/knowledge.md):
    // the product calls extractInSandbox, never extractText in its own process.
    files: ['activities/**/*.ts', 'services/**/*.ts', 'turns/**/*.ts', 'api/**/*.ts', 'workers/**/*.ts', 'cli/**/*.ts'],
    ignores: ['activities/knowledge/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/knowledge/extract'], importNames: ['extractText'], message: 'parse documents with extractInSandbox (activities/knowledge/extract-sandbox.ts)' }] },
      ],
    },
  },
  {
    // domain/ is pure types and functions: waiting, timers and I/O belong to the layers that do them.
    files: ['domain/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'Promise'].map((name) => ({ name, message: 'domain/ holds no timers or promises' })),
      ],
      'no-restricted-syntax': [
        'error',
        { selector: ':function[async=true]', message: 'domain/ holds pure functions: async work belongs in services/, activities/ or infra/' },
        { selector: "TSTypeReference[typeName.name='Promise']", message: 'domain/ holds no promises' },
      ],
    },
  },
  {
    // Each command loads its modules only when it runs, and a library few processes use only when
    // it is first needed (docs/operations.md: Start-up): require() on purpose.
    files: ['cli/main.ts', 'cli/runtime.ts', 'activities/acme.ts', 'activities/tools/mcp/tools.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // mocha's describe/it return values are not promises to await.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
);
