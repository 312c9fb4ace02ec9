/**
 * The built CLI (dist/cli.js, `npm run build` first) as a new user meets it: a book's bundle checked with the book
 * file itself (`verify --text book.epub`, its text extracted as `report --text` extracts it), the extracted text
 * written by `extract-text` (its SHA-256 the bundle's `text_sha256`), a DOCX analysed against two datasets whose
 * bundle verifies, a malformed bundle refused by `report` naming the member, and the rule of an HTTP upload at the
 * command line's door: a file whose name says no format taken is refused (not analysed as text), a file over the
 * limit is refused from its size alone, naming the limit, a text file that is not UTF-8 is refused.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/create-engine.js';
import type { Engine } from '../../src/engine.js';
import { sha256Portable, toHex } from '../../src/fingerprint/sha256.js';
import { buildEvidenceBundle, canonicalJson, loadReportKey } from '../../src/services/report/index.js';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';
import { analyseWork, CHAPTERS, reportEngine } from '../fixtures/work-report.js';
import { runCli } from '../fixtures/serve-process.js';

let dir: string;
let engine: Engine;
let textSha: string;
const file = (name: string) => join(dir, name);

const run = (args: string[]) => runCli(args, { cwd: dir });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-bundles-'));
  engine = await reportEngine();
  const key = await loadReportKey(engine.store);
  writeFileSync(file('report-key.json'), JSON.stringify({ success: true, ...key.publicKey }));
  // the EPUB analyseWork analyses, byte for byte
  writeFileSync(file('book.epub'), buildEpub(CHAPTERS));
  const book = await analyseWork(engine);
  const text = book.extraction!.text!;
  textSha = toHex(sha256Portable(new TextEncoder().encode(text)));
  const { extraction, ...withoutText } = book;
  const { text: _t, ...described } = extraction!;
  // a bundle of the analysis as stored without include_text: the report and verify need the text from a file
  const bundle = await buildEvidenceBundle(
    { result: { ...withoutText, extraction: described }, text },
    { key, variant: engine.variant },
  );
  writeFileSync(file('book-bundle.json'), canonicalJson(bundle));
  // two datasets added as zeta then alpha, one DOCX
  const two = await createEngine();
  const chapters = persuasion(3);
  await two.addDataset({ id: 'zeta', name: 'Z' }, [{ id: 'z', text: chapters[0].text }]);
  await two.addDataset({ id: 'alpha', name: 'A' }, [{ id: 'a', text: chapters[1].text }]);
  const docx = await two.analyze({ content: buildDocx(chapters), content_type: 'docx', include_text: true });
  const twoKey = await loadReportKey(two.store);
  writeFileSync(file('two-key.txt'), twoKey.publicKey.public_key);
  const docxBundle = await buildEvidenceBundle(
    { result: docx, text: docx.extraction!.text! },
    { key: twoKey, variant: two.variant },
  );
  writeFileSync(file('docx-bundle.json'), canonicalJson(docxBundle));
  two.dispose();
  const malformed = JSON.parse(canonicalJson(bundle));
  malformed.result.matches = null;
  writeFileSync(file('malformed.json'), JSON.stringify(malformed));
  const odd = JSON.parse(canonicalJson(bundle));
  odd.result.limitations = [{ code: 'x' }];
  writeFileSync(file('odd-limitations.json'), JSON.stringify(odd));
}, 120_000);

afterAll(() => {
  engine?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bundles a new user makes', () => {
  it('verify --text takes the book file as report --text does: extracted, then hashed', async () => {
    const v = await run(['verify', 'book-bundle.json', '--key', 'report-key.json', '--text', 'book.epub', '--json']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const checks = JSON.parse(v.stdout).checks as Array<{ name: string; ok: boolean }>;
    expect(checks.find((c) => c.name === 'text')?.ok).toBe(true);
    const r = await run(['report', 'book-bundle.json', '--text', 'book.epub', '--out', 'book.html']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file('book.html'), 'utf8')).not.toContain('was not at hand');
  });

  it('extract-text writes the text analyze reads: its SHA-256 is the bundle’s, and verify takes it', async () => {
    const x = await run(['extract-text', 'book.epub', '--out', 'book.txt']);
    expect(x.code, x.stderr).toBe(0);
    expect(x.stderr).toMatch(/^wrote book\.txt: [\d,]+ characters of epub text, 4 sections/);
    expect(toHex(sha256Portable(readFileSync(file('book.txt'))))).toBe(textSha);
    const stdout = await run(['extract-text', 'book.epub']);
    expect(toHex(sha256Portable(new TextEncoder().encode(stdout.stdout)))).toBe(textSha);
    const v = await run(['verify', 'book-bundle.json', '--key', 'report-key.json', '--text', 'book.txt']);
    expect(v.code, v.stdout).toBe(0);
    expect(v.stdout).toMatch(/^ok {4}text /m);
    expect((await run(['extract-text'])).code).toBe(2);
  });

  it('the bundle of a DOCX analysed against two datasets (zeta, then alpha) verifies', async () => {
    const v = await run(['verify', 'docx-bundle.json', '--key', 'two-key.txt']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^ok {4}sections /m);
  });

  it('report names the member of a malformed bundle, without a TypeError', async () => {
    const r = await run(['report', 'malformed.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: INVALID_INPUT: .*: malformed\.json: bundle\.result\.matches: is null, not an array/,
    );
    const o = await run(['report', 'odd-limitations.json']);
    expect(o.code).toBe(1);
    expect(o.stderr).toContain('bundle.result.limitations[0]: is an object, not a string');
    expect(r.stderr + o.stderr).not.toMatch(/Cannot read properties/);
  });
});

describe('one rule for files at every door', () => {
  it('refuses a file whose name says no format, as an upload is, instead of analysing it as text', async () => {
    writeFileSync(file('cover.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    writeFileSync(file('novel.mobi'), buildEpub(CHAPTERS)); // a packed novel renamed
    writeFileSync(file('letter.odt'), 'PK\x03\x04 not really');
    for (const name of ['cover.png', 'novel.mobi', 'letter.odt']) {
      const r = await run(['analyze', name, '--packs', 'none']);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toMatch(
        /^error: INVALID_INPUT: .*content_type is needed: the file ".*" of type "none" names no format taken \(epub, pdf, docx, text, markdown, html\)/,
      );
      expect(r.stdout).toBe('');
    }
    // named for what it is, it is analysed as that
    const typed = await run(['analyze', 'novel.mobi', '--type', 'epub', '--packs', 'none']);
    expect(typed.code, typed.stderr).toBe(0);
    expect(JSON.parse(typed.stdout)).toMatchObject({ content_type: 'epub', extraction: { format: 'epub' } });
    expect((await run(['analyze', 'novel.mobi', '--type', 'mobi'])).code).toBe(2);
  });

  it('refuses a text file that is not UTF-8, as an upload is', async () => {
    writeFileSync(file('latin1.txt'), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x6f, 0x69, 0x72]));
    const r = await run(['analyze', 'latin1.txt', '--packs', 'none']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: INVALID_INPUT: .*: latin1\.txt: is not UTF-8 text \(content_type "text"\)/);
  });

  it('refuses a file over the limit from its size alone, naming the size, the limit and whose it is', async () => {
    // sparse files: 200 MB that take no disk, and that a reader would have to read whole
    for (const [name, limit] of [
      ['huge.txt', /over the 10 MiB \(10,485,760 bytes\) of UTF-8 text analyze takes/],
      ['huge.pdf', /over the 64 MiB \(67,108,864 bytes\) the command line takes .* it has no plan.*Free 8 MiB/],
    ] as const) {
      writeFileSync(file(name), '');
      truncateSync(file(name), 200_000_000);
      const r = await run(['analyze', name, '--packs', 'none']);
      expect(r.code, name).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: PAYLOAD_TOO_LARGE: .*: ${name} is 200,000,000 bytes, `));
      expect(r.stderr).toMatch(limit);
    }
  });
});
