import { defineConfig } from 'vitest/config';

// Tests import the TypeScript sources; the core is loaded from the generated base64 module
// (src/core/wasm.generated.ts), so no Vite wasm plugin is involved.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
