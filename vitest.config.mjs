import { defineConfig } from 'vitest/config';

// Unit tests of the extension's and the webview's logic: modules that need neither VS Code nor a
// sidecar. The webview's DOM tests ask for jsdom in their own file header.
export default defineConfig({
  test: {
    include: ['extension/test/**/*.test.ts'],
    environment: 'node',
  },
});
