/**
 * `trainprint report` and `trainprint verify` of the built CLI (dist/cli.js, `npm run build` first) through
 * child_process: a book's analysis (its text in the result) and a plain text's (its text from `--text`, checked
 * against the work hash), a bundle signed by an engine's key — valid with that key, invalid with another key or one
 * byte changed, the check list printed, the exit codes 0 and 1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { buildEvidenceBundle, canonicalJson, loadReportKey } from '../../src/services/report/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { buildEpub } from '../fixtures/documents.js';
import { analyseWork, CHAPTERS, reportEngine } from '../fixtures/work-report.js';
import { runCli } from '../fixtures/serve-process.js';

let dir: string;
let engine: Engine;
const file = (name: string) => join(dir, name);

const run = (args: string[]) => runCli(args, { cwd: dir });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-report-'));
  engine = await reportEngine();
  const book = await analyseWork(engine);
  writeFileSync(file('book.json'), JSON.stringify(book, null, 2));
  const content = `${CHAPTERS[1].text}\n\nA reader's note <em>after</em> the chapter.`;
  writeFileSync(file('note.txt'), content);
  writeFileSync(file('note.json'), JSON.stringify(await engine.analyze({ content, content_type: 'text' }), null, 2));
  const key = await loadReportKey(engine.store);
  const bundle = await buildEvidenceBundle(
    { result: book, text: book.extraction!.text! },
    { key, variant: engine.variant },
  );
  writeFileSync(file('bundle.json'), canonicalJson(bundle));
  writeFileSync(file('report-key.json'), JSON.stringify({ success: true, ...key.publicKey }));
  writeFileSync(file('book.epub'), buildEpub(CHAPTERS));
  writeFileSync(file('copies.tpds'), engine.exportDataset('pg-copies'));
  writeFileSync(file('other-key.txt'), (await loadReportKey(new MemoryStore())).publicKey.public_key);
});

afterAll(() => {
  engine?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint report', () => {
  it("writes a book's page from its analysis, the text from the result", async () => {
    const r = await run(['report', 'book.json', '--out', 'book.html']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('wrote book.html');
    const html = readFileSync(file('book.html'), 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<h3>Per section</h3>');
    expect(html).not.toContain('was not at hand');
  });

  it('takes the text of a plain analysis from --text, checked against the work hash; without it, says so', async () => {
    const withText = await run(['report', 'note.json', '--text', 'note.txt']);
    expect(withText.code, withText.stderr).toBe(0);
    expect(withText.stdout).toContain('<mark>');
    expect(withText.stdout).not.toContain('was not at hand');
    const without = await run(['report', 'note.json']);
    expect(without.code).toBe(0);
    expect(without.stdout).toContain('The analysed text was not at hand');
    expect(without.stderr).toContain('--text FILE');
    const wrong = await run(['report', 'note.json', '--text', 'book.json']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/is not the analysed text/);
    expect((await run(['report'])).code).toBe(2);
    expect((await run(['report', 'report-key.json'])).stderr).toMatch(
      /neither an analysis result nor an evidence bundle/,
    );
  });

  it('analyze --report writes the page with the text the analysis read (the book extracted once)', async () => {
    const r = await run([
      'analyze',
      'book.epub',
      '--dataset',
      'copies.tpds',
      '--packs',
      'none',
      '--report',
      'at-once.html',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('wrote at-once.html');
    const result = JSON.parse(r.stdout);
    expect(result.matches.length).toBeGreaterThan(0);
    // the result as analyze prints it carries no text: the page has it from the engine's record
    expect(result.extraction.text).toBeUndefined();
    const html = readFileSync(file('at-once.html'), 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<h3>Per section</h3>');
    expect(html).toContain('<mark>');
    expect(html).toContain(result.analysis_id);
    expect(html).not.toContain('was not at hand');
  });

  it('writes the page of a bundle, with its signature', async () => {
    const r = await run(['report', 'bundle.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Ed25519 by key');
  });
});

describe('trainprint verify', () => {
  it('exits 0 for the bundle as served with the published key, 3 without a key unless --allow-unpinned', async () => {
    const pinned = await run(['verify', 'bundle.json', '--key', 'report-key.json']);
    expect(pinned.code, pinned.stdout + pinned.stderr).toBe(0);
    expect(pinned.stdout).toMatch(/^ok {4}signature +Ed25519 signature by key [0-9a-f]{16}/m);
    expect(pinned.stdout).toMatch(/^ok {4}sections /m);
    expect(pinned.stdout).toMatch(/^-- {4}not re-derived: /m);
    expect(pinned.stdout.trim().endsWith('\nvalid')).toBe(true);
    // without --key: valid under the key the bundle names, which anyone can make: said, and not exit code 0
    const r = await run(['verify', 'bundle.json']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout.trim().endsWith('valid (key not pinned)')).toBe(true);
    expect(r.stdout).toMatch(/^note .*--allow-unpinned/m);
    const allowed = await run(['verify', 'bundle.json', '--allow-unpinned']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout.trim().endsWith('valid (key not pinned)')).toBe(true);
    const keyed = await run(['verify', 'bundle.json', '--key', 'report-key.json', '--text', 'note.txt', '--json']);
    const v = JSON.parse(keyed.stdout);
    expect(v.checks.find((c: { name: string }) => c.name === 'signer').ok).toBe(true);
    // the note is not the book's text
    expect(v.checks.find((c: { name: string }) => c.name === 'text').ok).toBe(false);
    expect(keyed.code).toBe(1);
  });

  it('exits 1 with another key, or one byte changed', async () => {
    const other = await run(['verify', 'bundle.json', '--key', 'other-key.txt']);
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/^FAIL {2}signer /m);
    expect(other.stdout.trim().endsWith('INVALID')).toBe(true);
    // a mistyped key file is not a key the bundle differs from
    const typo = await run(['verify', 'bundle.json', '--key', 'other-key.tx']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--key other-key\.tx: no such file, nor an Ed25519 public key/);
    const notKey = await run(['verify', 'bundle.json', '--key', 'bundle.json']);
    expect(notKey.code).toBe(2);
    const bytes = readFileSync(file('bundle.json'));
    bytes[Math.floor(bytes.length / 2)] ^= 0x01;
    writeFileSync(file('changed.json'), bytes);
    const changed = await run(['verify', 'changed.json']);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('INVALID');
    expect((await run(['verify'])).code).toBe(2);
  });
});
