// `--help` on every bench script: its description and command line on stdout, exit 0, and nothing measured or
// written (bench/help.mjs, imported first by each script, answers before the script's own imports and options).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bench = fileURLToPath(new URL('../../bench/', import.meta.url));
const scripts = readdirSync(bench)
  .filter((name) => name.endsWith('.mjs'))
  .sort();
const cwd = mkdtempSync(join(tmpdir(), 'trainprint-bench-help-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Each file under bench/results/ with its modification time: a script that ran would rewrite one. */
const results = () =>
  Object.fromEntries(
    readdirSync(join(bench, 'results')).map((name) => [name, statSync(join(bench, 'results', name)).mtimeMs]),
  );

interface Answer {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}
const help = (script: string, flag: string) =>
  new Promise<Answer>((done) => {
    // the bound only ends a script that started its run instead of answering (a run takes minutes)
    execFile(process.execPath, [join(bench, script), flag], { cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      done({
        code: error ? ((error as { code?: number }).code ?? null) : 0,
        signal: error?.signal ?? null,
        stdout,
        stderr,
      }),
    );
  });

describe('bench scripts answer --help', () => {
  it('every script prints what it is and exits 0, writing no result', async () => {
    const before = results();
    const answers: [string, Answer][] = [];
    // four at a time: each is one short Node start
    for (let i = 0; i < scripts.length; i += 4) {
      const batch = scripts.slice(i, i + 4);
      answers.push(...(await Promise.all(batch.map(async (s) => [s, await help(s, '--help')] as [string, Answer]))));
    }
    for (const [script, answer] of answers) {
      expect({ script, code: answer.code, signal: answer.signal }).toEqual({ script, code: 0, signal: null });
      expect(`${answer.stdout}${answer.stderr}`.trim().length, script).toBeGreaterThan(20);
    }
    expect(results()).toEqual(before);
  });

  it('-h is --help', async () => {
    const answer = await help('cli-cpu.mjs', '-h');
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain('node bench/cli-cpu.mjs');
  });
});
