/**
 * One answer at every door: the same analyze request through the built library, the CLI (`trainprint analyze`), the
 * HTTP API (`trainprint serve`) and the web app's served mode (app/http-backend.ts over that API), one at a time and
 * eight at once, gives the same JSON byte for byte, the analysis's id and time aside (test/unit/same-answer.test.ts
 * holds the library to it under sliced work and burning cores). Each door searches what the others do: the starter
 * dataset and the default reference packs, which `serve --starter` and `analyze` load. Nothing is timed.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpBackend } from '../../app/http-backend.js';
import { requireBuiltCli, runCli, startServe } from '../fixtures/serve-process.js';
import { book } from '../fixtures/texts/index.js';

type Lib = typeof import('../../src/index.js');
const dist = (entry: string) => import(new URL(`../../dist/${entry}`, import.meta.url).href);

/** How many calls go at once in the concurrent round. */
const AT_ONCE = 8;

/** Every `every`-th word replaced: edited reuse, which the alignment stage has to align. */
const edit = (text: string, every: number) =>
  text
    .split(' ')
    .map((w, i) => (i % every === 0 ? 'zzyzx' : w))
    .join(' ');

const MIT =
  'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated ' +
  'documentation files (the "Software"), to deal in the Software without restriction, including without ' +
  'limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the ' +
  'Software';

/** Edited and verbatim passages of a packed book, a starter licence, and a sentence in nothing. */
const content = [
  edit(book('austen-persuasion').slice(20_000, 23_000), 5),
  book('austen-persuasion').slice(60_000, 61_200),
  MIT,
  'A paragraph written for this test alone, about the weather and nothing in any book.',
].join('\n\n');
const request = { content, content_type: 'text' as const };

/** Fields that name one call or its time: each answer has its own. */
const PER_CALL = new Set(['analysis_id', 'created_at']);

/** JSON of `value` without the {@link PER_CALL} fields: what must not differ (the datasets and documents named do). */
function comparable(value: unknown): string {
  return JSON.stringify(value, (k, v) => (PER_CALL.has(k) ? undefined : v));
}

/** One call's answer, then {@link AT_ONCE} calls' at once: each as {@link comparable} JSON. */
async function oneThenMany(call: () => Promise<unknown>): Promise<string[]> {
  const first = comparable(await call());
  const together = await Promise.all(Array.from({ length: AT_ONCE }, call));
  return [first, ...together.map(comparable)];
}

let reference: string;
let server: { child: ChildProcess; url: string; dev: string };
let dir: string;

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-same-answer-'));
  const lib: Lib = await dist('index.js');
  const { loadStarterDataset } = await dist('starter.js');
  const { loadDefaultPacks } = await dist('node.js');
  const engine = await lib.createEngine();
  await loadStarterDataset(engine);
  await loadDefaultPacks(engine);
  const answers = await oneThenMany(() => engine.analyze(request));
  engine.dispose();
  expect(new Set(answers).size).toBe(1);
  reference = answers[0];
  server = await startServe(['--starter', '--port', '0'], { startMs: 60_000 });
}, 300_000);
afterAll(() => {
  server?.child.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the same analyze request at every door, one at a time and eight at once', () => {
  it('the library: one answer, which finds the book and the licence', () => {
    const first = JSON.parse(reference);
    expect(first.confidence).toBeGreaterThanOrEqual(50);
    const datasets = new Set(first.matches.map((m: { dataset_id: string }) => m.dataset_id));
    expect([...datasets]).toEqual(expect.arrayContaining(['pack:gutenberg', 'spdx-licenses']));
  });

  it('HTTP: POST /api/v1/attribution/analyze answers as the library does', async () => {
    const answers = await oneThenMany(async () => {
      const res = await fetch(`${server.url}/api/v1/attribution/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.dev}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      expect(res.status).toBe(200);
      return res.json();
    });
    expect(new Set(answers)).toEqual(new Set([reference]));
  });

  it("the web app's served mode answers as the library does", async () => {
    // the page's origin: the backend names the API by it in its messages
    Object.defineProperty(globalThis, 'location', { value: new URL(`${server.url}/`), configurable: true });
    const backend = createHttpBackend({ baseUrl: server.url, apiKey: server.dev });
    const answers = await oneThenMany(() => backend.analyze(request));
    expect(new Set(answers)).toEqual(new Set([reference]));
  });

  it('the CLI: `trainprint analyze FILE` prints what the library answers, in one process or eight at once', async () => {
    const file = join(dir, 'work.txt');
    writeFileSync(file, content);
    const answers = await oneThenMany(async () => {
      const run = await runCli(['analyze', file, '--quiet'], { cwd: dir, timeout: 240_000 });
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    });
    expect(new Set(answers)).toEqual(new Set([reference]));
  }, 600_000);
});
