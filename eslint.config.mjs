// Lint: the recommended JavaScript and TypeScript rules, plus a guard that keeps `vscode`
// out of the folders that run in plain Node (src/core/api, src/core/store, src/core/scheduler, src/core/blame, src/core/search, src/core/asof),
// and `vscode` and Node's built-ins out of what the site editor's webview script is bundled from.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.cache/**', '.test-runs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // Typed rules: every promise is awaited, returned or handed to something that handles its
    // failure (`void` does not count: a rejection would be silent).
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false, checkThenables: true }] },
  },
  {
    files: ['src/core/api/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core/api must not depend on vscode.' }] }] },
  },
  {
    files: ['src/core/store/**/*.ts', 'src/core/scheduler/**/*.ts', 'src/core/blame/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core/store, src/core/scheduler and src/core/blame run in plain Node: they must not depend on vscode.' }] }] },
  },
  {
    files: ['src/core/search/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core/search runs in plain Node: it must not depend on vscode.' }] }] },
  },
  {
    files: ['src/core/asof/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core/asof runs in plain Node: it must not depend on vscode.' }] }] },
  },
  {
    // Bundled for the browser into dist/siteEditor.js (esbuild.mjs fails on these imports too).
    files: ['src/features/sites/webview/**/*.ts', 'src/features/sites/protocol.ts', 'src/features/sites/siteForm.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['vscode', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)].map((name) => ({ name, message: 'The site editor\'s webview runs in a browser: no vscode, no Node built-ins.' })),
      }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
      // Notifications render [text](link) as live links: every message goes through
      // src/workbench/messages.ts, whose types only take text with inert values (see there).
      'no-restricted-properties': ['error', ...['showInformationMessage', 'showWarningMessage', 'showErrorMessage'].map((property) => ({
        property,
        message: 'Use showInfo/showWarning/showError of src/workbench/messages.ts: they only accept text whose interpolated values went through plain().',
      }))],
    },
  },
  {
    files: ['src/workbench/messages.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
