/**
 * The job types' descriptions (src/services/jobs/descriptions.ts) as the web app loads them over a served API: a
 * module whose imports reach only the lines of each type and their words — never the library, an entry, the engine, a
 * schema or the store — so showing a job's results downloads a few KB, not the library. And they are the types'
 * own: each built-in type's `name`, `summarize` and `rows` are the very functions its description holds (one
 * definition), and the app reads them from there alone.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_JOB_DESCRIPTIONS, jobResultSummary } from '../../src/services/jobs/descriptions.js';
import { BUILT_IN_JOB_TYPES } from '../../src/entries/jobs.js';

const root = resolve(import.meta.dirname, '../..');

/** The files a module loads when it runs: its value imports (not `import type`), followed to the end. */
function loadedFiles(entry: string): string[] {
  const seen = new Set<string>();
  const queue = [resolve(root, entry)];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    const imports = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/gm;
    for (const m of code.matchAll(imports)) {
      queue.push(resolve(dirname(file), (m[1] ?? m[2]!).replace(/\.js$/, '.ts')));
    }
  }
  return [...seen].map((f) => relative(root, f)).sort();
}

describe('the job descriptions the web app loads', () => {
  it('reach no module beyond the lines, their words and the scan hit fields', () => {
    expect(loadedFiles('src/services/jobs/descriptions.ts')).toEqual([
      'src/datasets/types.ts',
      'src/services/jobs/descriptions.ts',
      'src/services/jobs/lines/analyze.ts',
      'src/services/jobs/lines/audit.ts',
      'src/services/jobs/lines/extract.ts',
      'src/services/jobs/lines/scan.ts',
      'src/services/jobs/lines/score.ts',
      'src/services/jobs/result-lines.ts',
      'src/services/scan/types.ts',
    ]);
  });

  it('are the one definition of each built-in type: the same name, summarize and rows', () => {
    expect([...BUILT_IN_JOB_DESCRIPTIONS.keys()]).toEqual([...BUILT_IN_JOB_TYPES.keys()]);
    for (const [name, type] of BUILT_IN_JOB_TYPES) {
      const d = BUILT_IN_JOB_DESCRIPTIONS.get(name)!;
      expect(d.summarize).toBe(type.summarize);
      expect(d.rows).toBe(type.rows);
    }
  });

  it("are what the app's jobs view imports, and nothing else of the library", () => {
    const app = readFileSync(join(root, 'app/jobs.ts'), 'utf8');
    expect([...app.matchAll(/'(\.\.\/src\/[^']+)'/g)].map((m) => m[1])).toEqual([
      '../src/services/jobs/descriptions.js',
      '../src/services/jobs/descriptions.js',
    ]);
  });

  it("write a type's line, a failed item's error and the neutral line of a type they do not know", () => {
    const done = (result: unknown) => ({ index: 0, success: true as const, result });
    expect(jobResultSummary('scan', done({ id: 'a', hits: [{}, {}] }))).toBe('2 hits');
    expect(jobResultSummary('upper', done({ text: 'A' }))).toBe('a result with text');
    const failed = { index: 1, success: false as const, error: { code: 'NOT_FOUND', message: 'no work' } };
    expect(jobResultSummary('scan', failed as Parameters<typeof jobResultSummary>[1])).toBe('NOT_FOUND: no work');
  });
});
