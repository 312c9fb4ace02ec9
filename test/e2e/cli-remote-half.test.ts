/**
 * `trainprint analyze work.txt` of the built CLI (dist/cli.js, `npm run build` first) as a new user would try it: a
 * 14,000-word work of made-up words (paragraphs of 120 words: a novella's length, a text that tokenises densely) and
 * the fixture engine started from the command line (test/fixtures/infini-gram/serve.mjs: documents of about 15,000
 * characters) over a file holding the work's first 7,000 words and a file of 7,000 other words. The sampled share's
 * 95 % interval covers the true share, 0.5, and the documents fetched verify their passages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, stopProcess } from '../fixtures/serve-process.js';

/** `count` paragraphs of 120 made-up words of three syllables each, seeded. */
function madeUp(seed: number, count: number): string[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const syllables = ['ka', 'zu', 'mor', 'qen', 'vil', 'tra', 'sho', 'pex', 'lun', 'dri', 'gaw', 'nef', 'yor', 'bix'];
  const word = () => Array.from({ length: 3 }, () => syllables[Math.floor(rand() * syllables.length)]).join('');
  return Array.from({ length: count }, () => Array.from({ length: 120 }, word).join(' '));
}

const WORK = madeUp(61, 117); // 14,040 words
const HALF = WORK.slice(0, WORK.length / 2 + 0.5); // the first 59 paragraphs: 7,080 words
const TRUTH = HALF.length / WORK.length;

let dir: string;
let engine: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-half-'));
  writeFileSync(join(dir, 'work.txt'), `${WORK.join('\n\n')}\n`);
  writeFileSync(join(dir, 'held.txt'), `${HALF.join('\n\n')}\n`);
  writeFileSync(join(dir, 'other.txt'), `${madeUp(7, 59).join('\n\n')}\n`);
  const serve = fileURLToPath(new URL('../fixtures/infini-gram/serve.mjs', import.meta.url));
  const child = spawn(
    process.execPath,
    [serve, '--index', 'v4_piletrain_llama', '--port', '0', join(dir, 'held.txt'), join(dir, 'other.txt')],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  engine = child;
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = / at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(`${m[1]}/`);
    });
    child.once('exit', (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)));
  });
}, 240_000);

afterAll(async () => {
  if (engine) await stopProcess(engine);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint analyze work.txt against a corpus holding half of it', () => {
  it('the interval covers 0.5; the fetched documents verify their passages', async () => {
    const r = await runCli(
      ['analyze', 'work.txt', '--packs', 'none', '--infini-gram', 'v4_piletrain_llama', '--infini-gram-endpoint', url],
      { cwd: dir, timeout: 240_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout).remote_corpora[0];
    expect(report.outcome).toBe('searched');
    expect(report.calls).toBeLessThanOrEqual(400);
    const s = report.sampling;
    if (process.env.TRAINPRINT_DEBUG_SAMPLING) console.log(JSON.stringify({ ...s, sections: undefined }));
    expect(TRUTH).toBeCloseTo(0.504, 3);
    expect(s.share.ci_95[0]).toBeLessThanOrEqual(0.5);
    expect(s.share.ci_95[1]).toBeGreaterThanOrEqual(TRUTH);
    expect(Math.abs(s.share.estimate - TRUTH)).toBeLessThanOrEqual(0.12);
    // before: 19 of 34 fetched verified, the share 0.28 [0.16, 0.46]; now 35 of 35, 0.503 [0.382, 0.654]
    expect(s.documents.verified / s.documents.fetched).toBeGreaterThanOrEqual(0.9);
    expect(s.documents.contradicted).toBe(0);
  }, 300_000);
});
