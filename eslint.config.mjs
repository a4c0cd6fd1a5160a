// Lint for the extension, its build scripts and the VS Code e2e test.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['extension/out/**', 'extension/src/protocol/generated/**', 'node_modules/**', 'dist/**', '.tandem-run/**', 'tests/vscode/workspace/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', Buffer: 'readonly', fetch: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-restricted-properties': ['error', { property: 'outerHTML', message: 'Build elements with dom.ts.' }],
    },
  },
);
