import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests import the TypeScript sources; the core is loaded from the generated base64 module
// (src/core/wasm.generated.ts), so no Vite wasm plugin is involved.
//
// Three tiers (`vitest run --project <name>`), all reading only committed fixtures:
//   unit      pure: no dist/, no network, no child processes; fast enough to run on every change (with
//             unit-isolated: the unit files that need modules of their own, below)
//   contract  HTTP through the handler and the store contract
//   e2e       the CLI, real listening servers, Chromium, Deno, Python and crash tests (some need dist/)
// `npm run test:quick` is unit + contract without the slowest files below (each over 10 s on a 2-core machine:
// statistical interval checks, long property runs, the remote-corpus fault matrix); `npm test` runs everything: unit
// and contract on every core, then e2e on one core fewer but at least three files at a time (its project's maxWorkers
// below; package.json).
const SLOW = [
  'test/unit/score.test.ts',
  'test/contract/remote-corpus.test.ts',
  'test/unit/byte-gpt.test.ts',
  'test/unit/property/content-pairs.test.ts',
  'test/contract/http.test.ts',
  'test/unit/abi/tokenize.test.ts',
  'test/unit/dataset.test.ts',
  'test/unit/property/fingerprint.test.ts',
  'test/contract/openapi-examples.test.ts',
];

const E2E_WORKERS = Math.max(3, availableParallelism() - 1);
// End-to-end files that run alone, after the others: they count on timing or on a core of their own (a store
// SIGKILLed at random moments within a bound, slow bodies against the default deadlines, a 10 MB analyze beside
// status requests, monitors created through 10 kills, a queue worker paused past its lease, a remote search
// within its deadline, the memorization models' assessments). Two at a time on a 2-core machine at a load average of
// 25, each of these but serve-stall and serve-kill failed on a limit (serve-stall failed alone there too, and so did
// store-crash: that machine ran the files 3 to 5 times slower than the fresh-clone CI run).
const E2E_ALONE = [
  'test/e2e/store-crash.test.ts',
  'test/e2e/serve-slow-bodies.test.ts',
  'test/e2e/serve-stall.test.ts',
  'test/e2e/serve-kill.test.ts',
  'test/e2e/scan-queue.test.ts',
  'test/e2e/web-memorization.test.ts',
  'test/e2e/memorization-model-serve.test.ts',
  'test/e2e/cli-remote-forms.test.ts',
];

// Unit and contract files share their worker's modules (`isolate: false`): a worker imports the library's TypeScript
// sources once and runs its files one after another in that module graph, where each file in its own graph imported
// them again (Vitest's summary on a fresh-clone CI run: import ≈ 205 s summed over 268 files). The whole unit and
// contract command, two at a time on a 2-core machine at a load average of 5–7, one run each: CPU (user + sys) 1,021
// against 1,225 s isolated (0.83×), wall 1,391 against 1,577 s, import summed 126 against 466 s. Every file passed
// that way, in Vitest's order and in a shuffled one, but the ones below, which run isolated in a project of their
// own (package.json's scripts name both unit projects):
//   synonyms-load  checks that the synonym table (a module-level table loaded on demand) is not loaded until an engine
//                  asks for it, so it needs a module graph where no other file has made an engine
const UNIT_ISOLATED = ['test/unit/synonyms-load.test.ts'];

// npm names the script it runs: `npm run test:quick` leaves the slow files out, every other way of running keeps them
const skipped = process.env.npm_lifecycle_event === 'test:quick' ? SLOW : [];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll waits for an event (a page's status line, a job's end): its bound only catches a hang, so it is
    // generous — Vitest's default of 1 s failed a Chromium test whenever a loaded 2-core machine was slower than that
    expect: { poll: { timeout: 60_000 } },
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...skipped, ...UNIT_ISOLATED],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'unit-isolated', include: UNIT_ISOLATED, exclude: skipped } },
      {
        extends: true,
        test: { name: 'contract', include: ['test/contract/**/*.test.ts'], exclude: skipped, isolate: false },
      },
      // Vitest's default (one core fewer than the machine has), but at least three files at a time: most e2e files
      // wait on child processes, servers, leases, PostgreSQL and Chromium rather than compute, so on 2 cores more
      // workers overlap those waits where the default ran the 71 files one after another (a fresh-clone CI run on 2
      // cores: 1,044 s one at a time, 766 s two at a time, the longest files there waiting out a job's or a
      // delivery's lease: serve-audit-restart 69 s, serve-postgres-kill 54 s). Groups of their
      // own (after unit and contract, then the files that run alone) because Vitest runs the projects of one
      // group on one worker count. `--project 'e2e*'` selects both.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: E2E_ALONE,
          maxWorkers: E2E_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'e2e-alone', include: E2E_ALONE, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
