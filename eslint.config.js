// @ts-check
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { layering } from './scripts/lint/layering.js';

/** Globals of Node's CommonJS modules, for the few `.cjs` files. */
const nodeCommonJsGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
};

export default defineConfig(
  // The lint fixtures break the layering on purpose: scripts/lint.test.ts lints them with the layering alone.
  globalIgnores(['node_modules/', 'dist/', 'var/', 'ui/dist/', 'coverage/', '.tmp/', 'scripts/lint/fixtures/']),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // `http.createServer(app.callback())`: Koa's handler returns a promise that never rejects.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  ...layering,
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: nodeCommonJsGlobals },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/*.contract.ts'],
    rules: {
      // chai assertions such as `expect(x).to.be.true` are expressions by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
);
