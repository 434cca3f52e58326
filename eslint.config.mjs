// Lint: the recommended JavaScript and TypeScript rules, plus the layering rule (src/core never
// imports `vscode` or the VS Code side; src/workbench never imports a feature), and `vscode` and
// Node's built-ins kept out of what the site editor's webview script is bundled from.
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
  // The layers (CONTRIBUTING.md, "Architecture"): src/core runs in plain Node — no `vscode`, and
  // nothing from the VS Code side (src/workbench, src/features, src/extension.ts) — so that it is
  // unit-tested without VS Code; src/workbench (the VS Code pieces every feature shares) does not
  // reach into a feature. A feature folder may use core, workbench and other features.
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core runs in plain Node: it must not depend on vscode.' }],
        patterns: [{ group: ['**/workbench/**', '**/features/**', '**/extension', '**/extension.js'], message: 'src/core is the plain-Node layer: it must not import the VS Code side (src/workbench, src/features, src/extension.ts).' }],
      }],
    },
  },
  {
    files: ['src/workbench/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/features/**', '**/extension', '**/extension.js'], message: 'src/workbench holds what every feature shares: it must not import a feature (src/features) or src/extension.ts.' }],
      }],
    },
  },
  {
    // Bundled for the browser into dist/siteEditor.js (esbuild.mjs fails on these imports too).
    files: ['src/features/sites/webview/**/*.ts', 'src/features/sites/protocol.ts', 'src/features/sites/siteForm.ts', 'src/features/sites/formFields.ts'],
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
