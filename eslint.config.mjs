// ESLint: the recommended JavaScript and TypeScript rules everywhere, and for workflow code (which
// Temporal replays deterministically in a sandbox) no Node built-ins and no promise left floating.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = builtinModules.flatMap((m) => (m.startsWith('_') ? [] : [m, `node:${m}`]));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'coverage/', 'test/helpers/openapi-types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore names what is there on purpose and left unused (an Express error handler's next).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Tests read answers of any shape; the code they test is typed.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // CommonJS configuration files.
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['workflows/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code runs in a deterministic sandbox: do I/O in an activity.' })) },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
);
