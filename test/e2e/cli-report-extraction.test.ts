/**
 * A model extraction through the built CLI (dist/cli.js, `npm run build` first): `trainprint report --extraction`
 * draws its strip (and refuses an extraction of another text), and `trainprint verify` checks the record of calls of
 * a bundle that carries one — valid as signed, invalid once a call's digest is changed and the bundle signed again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { GenerateOptions, TargetModel } from '../../src/models/types.js';
import type { AnalysisResult } from '../../src/services/analyze/types.js';
import { runWorkExtraction, type WorkExtractionResult } from '../../src/services/memorization/extract-work.js';
import { buildEvidenceBundle, canonicalJson, loadReportKey } from '../../src/services/report/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { analyseWork, reportEngine } from '../fixtures/work-report.js';
import { runCli } from '../fixtures/serve-process.js';

let dir: string;
let engine: Engine;
let book: AnalysisResult;
let extraction: WorkExtractionResult;
const file = (name: string) => join(dir, name);
const run = (args: string[]) => runCli(args, { cwd: dir });

/** A model that continues the text from the prompt's last five words inside words [from, to). */
function reciter(words: readonly string[], from: number, to: number): TargetModel {
  const index = new Map<string, number>();
  for (let i = 5; i <= words.length; i++) index.set(words.slice(i - 5, i).join(' '), i);
  return {
    id: 'reciter',
    access: 'generations_only',
    async generate(prompt: string, o: GenerateOptions) {
      const at = index.get((o.messages?.at(-1)?.content ?? prompt).split(/\s+/).slice(-5).join(' '));
      return at === undefined || at < from || at >= to
        ? 'the weather was mild and nothing else happened'
        : words.slice(at, Math.min(to, at + 60)).join(' ');
    },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-report-extraction-'));
  engine = await reportEngine();
  book = await analyseWork(engine);
  const text = book.extraction!.text!;
  const words = text.split(/\s+/).filter(Boolean);
  const from = Math.floor(words.length * 0.3);
  extraction = await runWorkExtraction(new MemoryStore(), {
    text,
    model: reciter(words, from, from + 400),
    budget_calls: 300,
    concurrency: 1,
  });
  writeFileSync(file('book.json'), JSON.stringify(book));
  writeFileSync(file('extraction.json'), JSON.stringify(extraction));
  writeFileSync(file('other.json'), JSON.stringify({ ...extraction, text_sha256: '0'.repeat(64) }));
  const key = await loadReportKey(engine.store);
  const sign = async (x: WorkExtractionResult) =>
    canonicalJson(
      await buildEvidenceBundle({ result: book, text, model_extractions: [x] }, { key, variant: engine.variant }),
    );
  writeFileSync(file('bundle.json'), await sign(extraction));
  const calls = extraction.record.calls.map((c, i) => (i === 0 ? { ...c, request_sha256: 'e'.repeat(64) } : c));
  writeFileSync(file('forged.json'), await sign({ ...extraction, record: { ...extraction.record, calls } }));
  writeFileSync(file('report-key.json'), JSON.stringify({ success: true, ...key.publicKey }));
}, 120_000);

afterAll(() => {
  engine?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint report --extraction', () => {
  it('draws the strip of what the model wrote out', async () => {
    expect(extraction.blocks.length).toBeGreaterThan(0);
    const r = await run(['report', 'book.json', '--extraction', 'extraction.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('<h2>What models wrote out</h2>');
    expect(r.stdout).toContain('<svg class="extraction"');
    expect(r.stdout).toContain(extraction.record.transcript_sha256);
  });

  it('refuses an extraction of another text, and a file that is not one', async () => {
    const other = await run(['report', 'book.json', '--extraction', 'other.json']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/measured another text/);
    const notOne = await run(['report', 'book.json', '--extraction', 'book.json']);
    expect(notOne.code).toBe(1);
    expect(notOne.stderr).toMatch(/not a trainprint extract result/);
  });

  it("draws a bundle's own extractions", async () => {
    const r = await run(['report', 'bundle.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('<svg class="extraction"');
  });
});

describe('trainprint verify of a bundle with a model extraction', () => {
  it('is valid as signed and invalid once a recorded call is changed', async () => {
    const ok = await run(['verify', 'bundle.json', '--key', 'report-key.json']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('model_extraction:0');
    const forged = await run(['verify', 'forged.json', '--key', 'report-key.json']);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toMatch(/model_extraction:0.*the calls hash to/);
  });
});
