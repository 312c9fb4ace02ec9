/**
 * The built CLI reads files by one rule at every door: `fingerprint` as `analyze` (the type by `--type` or the
 * extension — a name of no format taken refused, not read as text —, the size checked before reading, an EPUB's
 * extracted text fingerprinted, a hostile file refused naming the limit), and `index build` takes a book file among
 * its corpus files as one document, its extracted text.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEpub, persuasion } from '../fixtures/documents.js';
import { HOSTILE_FILES } from '../fixtures/hostile-files.js';
import { requireBuiltCli, runCli } from '../fixtures/serve-process.js';

let dir: string;
const at = (f: string) => join(dir, f);
const run = (args: string[]) => runCli(args, { cwd: dir, timeout: 120_000 });
const chapters = persuasion(2);

beforeAll(() => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-file-rule-'));
  writeFileSync(at('book.epub'), buildEpub(chapters));
  writeFileSync(at('book.txt'), chapters.map((c) => `${c.title}\n\n${c.text}`).join('\n\n'));
  writeFileSync(at('cover.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  writeFileSync(at('bomb.pdf'), HOSTILE_FILES['pages-dag.pdf']()[1]);
  const para = chapters[0].text.slice(0, 1500);
  writeFileSync(at('page.html'), `<html><head><title>T</title></head><body><p class="x">${para}</p></body></html>`);
  writeFileSync(at('page.md'), `# Chapter\n\n*${para}* [link](https://example.org/x)\n`);
  writeFileSync(at('huge.txt'), 'a');
  truncateSync(at('huge.txt'), 200 * 1024 * 1024); // sparse: 200 MB on paper, nothing on disk
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI reads files by one rule', () => {
  it("fingerprint: an EPUB's extracted text, as extract-text writes it", async () => {
    const epub = await run(['fingerprint', 'book.epub']);
    expect(epub.code, epub.stderr).toBe(0);
    const text = await run(['extract-text', 'book.epub', '--out', 'book.extracted.txt']);
    expect(text.code, text.stderr).toBe(0);
    const same = await run(['fingerprint', 'book.extracted.txt']);
    expect(JSON.parse(epub.stdout)).toEqual(JSON.parse(same.stdout));
    expect(JSON.parse(epub.stdout).token_count).toBeGreaterThan(1000);
  }, 240_000);

  it("fingerprint: a Markdown or HTML file's text without its markup, work_hash of the file", async () => {
    for (const file of ['page.html', 'page.md']) {
      const fp = await run(['fingerprint', file]);
      expect(fp.code, fp.stderr).toBe(0);
      // the same file read as plain text: its markup's words too
      const markup = await run(['fingerprint', file, '--type', 'text']);
      const [got, plain] = [JSON.parse(fp.stdout), JSON.parse(markup.stdout)];
      expect(got.fingerprint).not.toBe(plain.fingerprint);
      expect(got.token_count).toBeLessThan(plain.token_count);
      expect(got.work_hash).toBe(plain.work_hash);
      const sha = createHash('sha256')
        .update(readFileSync(at(file)))
        .digest('hex');
      expect(got.work_hash).toBe(`sha256:${sha}`);
      const analyzed = await run(['analyze', file, '--packs', 'none', '-q']);
      expect(analyzed.code, analyzed.stderr).toBe(0);
      expect(JSON.parse(analyzed.stdout).fingerprint).toBe(got.fingerprint);
    }
  }, 240_000);

  it('fingerprint refuses what analyze refuses: no format taken, too large (before reading), a hostile file', async () => {
    const png = await run(['fingerprint', 'cover.png']);
    expect(png.code).toBe(1);
    expect(png.stderr).toMatch(/^error: INVALID_INPUT: .*cover\.png.*names no format taken/m);
    const huge = await run(['fingerprint', 'huge.txt']);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toMatch(/PAYLOAD_TOO_LARGE: .*huge\.txt is 209,715,200 bytes, over the 10 MiB/);
    const bomb = await run(['fingerprint', 'bomb.pdf']);
    expect(bomb.code).toBe(1);
    expect(bomb.stderr).toMatch(/PAYLOAD_TOO_LARGE: .*1000000000 pages, over the limit of 10000/);
    for (const r of [png, huge, bomb]) expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 240_000);

  it('index build: a book file among the corpus files is one document, its extracted text', async () => {
    const built = await run(['index', 'build', '--dataset', 'books', '--out', 'books.tpds', 'book.epub', 'book.txt']);
    expect(built.code, built.stderr).toBe(0);
    expect(JSON.parse(built.stdout).stats).toMatchObject({ documents: 2 });
    const refused = await run(['index', 'build', '--dataset', 'x', '--out', 'x.tpds', 'book.txt', 'bomb.pdf']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/PAYLOAD_TOO_LARGE: .*bomb\.pdf: the PDF file is too large/);
  }, 240_000);
});
