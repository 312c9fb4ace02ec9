/**
 * `trainprint analyze book.docx` of the built CLI (dist/cli.js, `npm run build` first) against the fixture infini-gram
 * engine on 127.0.0.1 holding half of the book's chapters hard-wrapped, as the Project Gutenberg file has them, while
 * the DOCX has a paragraph a line and curly quotes: the sampled share's interval covers the true share, and the found
 * passages come back with spans a reader can check.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocx } from '../fixtures/documents.js';
import { buildTokenIndex, startInfiniGramServer, type InfiniGramServer } from '../fixtures/infini-gram/index.mjs';
import { runCli } from '../fixtures/serve-process.js';

const RAW = readFileSync(new URL('../fixtures/texts/gutenberg/austen-persuasion.txt', import.meta.url), 'utf8');
const WRAPPED = RAW.split(/^(?=Chapter \d+\s*$)/m)
  .slice(1)
  .map((c) => c.replace(/\r/g, '').trim());
const curly = (t: string) =>
  t
    .replace(/(^|[\s(])"/g, '$1\u201c')
    .replace(/"/g, '\u201d')
    .replace(/'/g, '\u2019');
const HELD = WRAPPED.map((_, i) => i).filter((i) => i % 2 === 0);
const words = (t: string) => (t.match(/\S+/g) ?? []).length;

let dir: string;
let server: InfiniGramServer;

const run = (args: string[]) => runCli(args, { cwd: dir, timeout: 240_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-forms-'));
  const caesar = readFileSync(new URL('../fixtures/texts/gutenberg/shakespeare-caesar.txt', import.meta.url), 'utf8');
  const filler = [0, 1, 2, 3].map((k) => ({
    text: caesar.slice((k * caesar.length) / 4, ((k + 1) * caesar.length) / 4),
  }));
  server = await startInfiniGramServer({
    kind: 'infini-gram',
    indexes: {
      v4_wrapped_llama: buildTokenIndex({
        documents: [...filler, ...HELD.map((i) => ({ text: WRAPPED[i] }))],
        tokenizer: 'llama',
      }),
    },
  });
  // the book as a word processor holds it: a paragraph a line, curly quotes, each chapter under its heading
  const chapters = WRAPPED.map((c, i) => ({
    title: `Chapter ${i + 1}`,
    text: curly(c.replace(/^Chapter \d+\s*/, '')),
  }));
  writeFileSync(join(dir, 'book.docx'), buildDocx(chapters));
}, 240_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint analyze book.docx against a hard-wrapped copy', () => {
  it('the sampled share covers the true share; the passages come back with spans', async () => {
    const r = await run([
      'analyze',
      'book.docx',
      '--packs',
      'none',
      '--infini-gram',
      'v4_wrapped_llama',
      '--infini-gram-endpoint',
      server.url,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const report = result.remote_corpora[0];
    expect(report.outcome).toBe('searched');
    expect(report.calls).toBeLessThanOrEqual(400);
    const s = report.sampling;
    const truth = HELD.reduce((t, i) => t + words(WRAPPED[i]), 0) / WRAPPED.reduce((t, c) => t + words(c), 0);
    expect(s.share.ci_95[0]).toBeLessThanOrEqual(truth);
    expect(s.share.ci_95[1]).toBeGreaterThanOrEqual(truth);
    expect(Math.abs(s.share.estimate - truth)).toBeLessThanOrEqual(0.12);
    expect(s.documents.contradicted).toBe(0);
    const remote = result.matches.filter((m: { kind: string }) => m.kind === 'remote');
    expect(remote.length).toBeGreaterThan(5);
  }, 300_000);
});
