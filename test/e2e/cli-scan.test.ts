// `trainprint scan` against the built CLI (dist/cli.js and dist/scan-worker.js: `npm run build` first): a scan of
// JSON Lines with planted archive passages, the same output with --threads 2, and --resume after kill -9 and after
// Ctrl-C (SIGINT) giving exactly the output of an uninterrupted run.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { archive, cleanOutputs, exactSpan, plantedOutputs } from '../fixtures/scan-plant.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'dist/cli.js');
let dir: string;

function run(args: string[], timeout = 300_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: dir, timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Starts a scan; resolves once its checkpoint counts at least `items` items, with the child still running. */
async function startUntil(args: string[], checkpoint: string, items: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cli, ...args], { cwd: dir, stdio: 'ignore' });
  for (let waited = 0; waited < 120_000; waited += 20) {
    await new Promise((r) => setTimeout(r, 20));
    if (child.exitCode !== null) throw new Error(`the scan ended (code ${child.exitCode}) before the kill`);
    try {
      if (JSON.parse(readFileSync(join(dir, checkpoint), 'utf8')).items >= items) return child;
    } catch {}
  }
  throw new Error('no checkpoint');
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));

const planted = plantedOutputs(archive(), 60, 77);
const LARGE = 8000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-scan-'));
  const engine = await createEngine();
  await engine.addDataset({ id: 'archive' }, archive());
  writeFileSync(join(dir, 'archive.tpds'), engine.exportDataset('archive'));
  const clean = cleanOutputs(400, 78);
  const lines = [
    // item 5 has no id: it is named by its line, outputs.jsonl:6
    ...planted.map((p, i) => JSON.stringify(i === 5 ? { text: p.text } : { id: `planted-${i}`, text: p.text })),
    ...clean.map((text, i) => JSON.stringify(i % 50 === 0 ? { text } : { id: `clean-${i}`, text })),
  ];
  writeFileSync(join(dir, 'outputs.jsonl'), `${lines.join('\n')}\n`);
  // a large input for the interruptions: the small one again and again, with planted passages all through
  const large: string[] = [];
  for (let k = 0; large.length < LARGE; k++) for (const l of lines) large.push(l.replace(/"id":"/, `"id":"${k}-`));
  writeFileSync(join(dir, 'large.jsonl'), `${large.slice(0, LARGE).join('\n')}\n`);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint scan', () => {
  it('writes a hit line for every planted passage, with its spans, and none for clean outputs', async () => {
    const r = await run(['scan', '--dataset', 'archive.tpds', 'outputs.jsonl', '--out', 'hits.jsonl']);
    expect(r.stderr).toMatch(/scanned 460 items.*60 hits/);
    expect(r.code).toBe(0);
    const hits = readFileSync(join(dir, 'hits.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(hits).toHaveLength(60);
    expect(Object.keys(hits[0])).toEqual([
      'id',
      'dataset_id',
      'document_id',
      'query_start',
      'query_end',
      'source_start',
      'source_end',
      'words',
      'kind',
    ]);
    for (const [i, p] of planted.entries()) {
      const h = hits.find((x) => x.id === (i === 5 ? 'outputs.jsonl:6' : `planted-${i}`));
      expect(h.document_id).toBe(p.document_id);
      expect(exactSpan(p.text, h, p)).toBe(true);
    }
    // --threads 2 gives the same bytes; stdout too
    const t = await run([
      'scan',
      '--dataset',
      'archive.tpds',
      'outputs.jsonl',
      '--out',
      'hits-2.jsonl',
      '--threads',
      '2',
    ]);
    expect(t.code).toBe(0);
    expect(readFileSync(join(dir, 'hits-2.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'hits.jsonl'), 'utf8'));
    const s = await run([
      'scan',
      '--dataset',
      'archive.tpds',
      'outputs.jsonl',
      '--out',
      '-',
      '--min-words',
      '100',
      '-q',
    ]);
    expect(s.code).toBe(0);
    expect(s.stderr).toBe('');
    const long = hits.filter((h) => h.words >= 100);
    expect(
      s.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(long);
  }, 300_000);

  it('usage errors exit 2; a missing input exits 1', async () => {
    expect((await run(['scan', 'outputs.jsonl', '--out', 'x.jsonl'])).code).toBe(2);
    expect((await run(['scan', '--dataset', 'archive.tpds', 'outputs.jsonl'])).code).toBe(2);
    expect((await run(['scan', '--dataset', 'archive.tpds', 'outputs.jsonl', '--out', '-', '--resume'])).code).toBe(2);
    expect((await run(['scan', '--dataset', 'archive.tpds', 'nope.jsonl', '--out', 'x.jsonl'])).code).toBe(1);
    // a damaged dataset: the same one-sentence error from a scan's threads as from its main thread
    writeFileSync(join(dir, 'damaged.tpds'), 'not a dataset');
    const refusals: string[] = [];
    for (const threads of ['1', '2']) {
      const r = await run([
        'scan',
        '--dataset',
        'damaged.tpds',
        'outputs.jsonl',
        '--out',
        'x.jsonl',
        '--threads',
        threads,
      ]);
      expect(r.code).toBe(1);
      refusals.push(r.stderr.split('\n').find((l) => l.startsWith('error:')) ?? r.stderr);
    }
    expect(refusals[0]).toMatch(/^error: SNAPSHOT_INCOMPATIBLE: The snapshot is truncated/);
    expect(refusals[0].match(/The snapshot is truncated/g)).toHaveLength(1);
    expect(refusals[1]).toBe(refusals[0]);
  }, 120_000);

  for (const threads of ['1', '2']) {
    it(`--resume after kill -9 and after Ctrl-C gives the output of an uninterrupted run (--threads ${threads})`, async () => {
      const base = [
        'scan',
        '--dataset',
        'archive.tpds',
        'large.jsonl',
        '--threads',
        threads,
        '--checkpoint-every',
        '0.05',
      ];
      const whole = await run([...base, '--out', `whole-${threads}.jsonl`]);
      expect(whole.code).toBe(0);
      const expected = readFileSync(join(dir, `whole-${threads}.jsonl`), 'utf8');
      expect(expected.split('\n').length).toBeGreaterThan(1000);
      const out = `resumed-${threads}.jsonl`;
      // kill -9 mid-run, twice, then a resume to the end
      for (const at of [800, 3000]) {
        const child = await startUntil(
          [...base, '--out', out, ...(at > 800 ? ['--resume'] : [])],
          `${out}.checkpoint`,
          at,
        );
        child.kill('SIGKILL');
        await exited(child);
      }
      expect(readFileSync(join(dir, out), 'utf8')).not.toBe(expected);
      const rest = await run([...base, '--out', out, '--resume']);
      expect(rest.code).toBe(0);
      expect(rest.stderr).toMatch(/done before the resume/);
      expect(readFileSync(join(dir, out), 'utf8')).toBe(expected);
      // Ctrl-C: the checkpoint is written and the exit code is 130; the resume finishes it
      const ctrlC = `ctrl-c-${threads}.jsonl`;
      const child = await startUntil([...base, '--out', ctrlC], `${ctrlC}.checkpoint`, 1500);
      child.kill('SIGINT');
      expect(await exited(child)).toBe(130);
      const cp = JSON.parse(readFileSync(join(dir, `${ctrlC}.checkpoint`), 'utf8'));
      expect(cp.items).toBeGreaterThanOrEqual(1500);
      expect(readFileSync(join(dir, ctrlC)).length).toBe(cp.bytes);
      expect((await run([...base, '--out', ctrlC, '--resume'])).code).toBe(0);
      expect(readFileSync(join(dir, ctrlC), 'utf8')).toBe(expected);
      expect(existsSync(join(dir, `${ctrlC}.checkpoint`))).toBe(true);
      // a resume of another scan (other options) is refused
      const other = await run([...base, '--out', ctrlC, '--resume', '--min-words', '60']);
      expect(other.code).toBe(1);
      expect(other.stderr).toMatch(/another scan/);
    }, 600_000);
  }
});
