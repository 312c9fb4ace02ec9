import { defineConfig } from 'vitest/config';

// Tests import the TypeScript sources; the core is loaded from the generated base64 module
// (src/core/wasm.generated.ts), so no Vite wasm plugin is involved.
//
// Three tiers (`vitest run --project <name>`), all reading only committed fixtures:
//   unit      pure: no dist/, no network, no child processes; fast enough to run on every change
//   contract  HTTP through the handler and the store contract
//   e2e       the CLI, real listening servers, Chromium, Deno, Python and crash tests (some need dist/)
export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'contract', include: ['test/contract/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
