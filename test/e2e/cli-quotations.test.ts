/**
 * Quotations through the built CLI (dist/cli.js, `npm run build` first) with the default reference packs, as
 * `npm start` and the web app answer: an invented family story that quotes the Constitution's preamble in quotation
 * marks (the round-6 reproduction: 94.9 before, because Trollope's *North America* reprints the preamble in the
 * Gutenberg pack) answers < 50 about its own text, with the preamble shown as a quotation naming that book — in the
 * JSON and in the work report — and `--quotations count` counts it. The same preamble as 43 % of a shorter text
 * counts for the work, with the share in the headline. A copied page of *Persuasion*'s dialogue, unmarked, is the
 * work's text (≥ 50 naming the book), however long its longest speech; after "As Jane Austen wrote," a quotation.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/serve-process.js';

const ESSAY = new URL('../fixtures/quotations/essay-quoting-the-constitution.txt', import.meta.url);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-cli-quotations-'));
  copyFileSync(ESSAY, join(dir, 'essay.txt'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trainprint analyze: a quotation of known text', () => {
  it('answers < 50 with the preamble shown as a quotation (JSON and work report)', async () => {
    const r = await runCli(['analyze', 'essay.txt', '--quiet', '--report', 'report.html'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.confidence).toBeLessThan(50);
    const quote = result.matches.find((m: { role?: string }) => m.role === 'quotation');
    expect(quote).toMatchObject({ dataset_id: 'pack:gutenberg', quotation: { by: ['quotation_marks'] } });
    expect(quote.document.title).toMatch(/North America/);
    const text = readFileSync(ESSAY, 'utf8');
    expect(text.slice(quote.query_start, quote.query_end)).toMatch(/Order to form a more perfect Union/);
    expect(result.risk_assessment.factors).toContain('quotes_known_text');
    expect(result.corpus_evidence.summary).toMatch(/^No corpus evidence about the work's own text/);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/<h2>Quotations<\/h2>/);
    expect(html).toMatch(/quoted: “[^”]*more perfect Union[^”]*” — in <i>North America, Volume II \(of 2\)<\/i>/);
  }, 60_000);

  it('--quotations count counts it; another value is a usage error', async () => {
    const counted = await runCli(['analyze', 'essay.txt', '--quiet', '--quotations', 'count'], { cwd: dir });
    expect(counted.code, counted.stderr).toBe(0);
    expect(JSON.parse(counted.stdout).confidence).toBeGreaterThanOrEqual(50);
    const bad = await runCli(['analyze', 'essay.txt', '--quiet', '--quotations', 'ignore'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--quotations must be 'exclude' or 'count'/);
  }, 60_000);

  it('a quotation of over a third of the text counts for the work, its share stated in the headline', async () => {
    const essay = readFileSync(ESSAY, 'utf8');
    const preamble = /"([^"]+)"/.exec(essay)?.[1] ?? '';
    const own = essay
      .replace(/"[^"]+"/, '')
      .split(/\s+/)
      .filter(Boolean);
    const text = `${own.slice(0, 35).join(' ')}\n\n"${preamble}"\n\n${own.slice(35, 70).join(' ')}\n`;
    writeFileSync(join(dir, 'short.txt'), text);
    const r = await runCli(['analyze', 'short.txt', '--quiet'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const quote = result.matches.find((m: { role?: string }) => m.role === 'quotation');
    expect(quote.quotation.counts).toBe(true);
    expect(quote.quotation.share).toBeGreaterThan(1 / 3);
    expect(result.confidence).toBeGreaterThanOrEqual(50);
    expect(result.corpus_evidence.summary).toContain(
      `${Math.round(quote.quotation.share * 100)} % of the text is quoted from "North America`,
    );
  }, 60_000);

  it('a copied page of dialogue is the work’s text; after an attribution it is a quotation', async () => {
    const book = readFileSync(new URL('../fixtures/texts/gutenberg/austen-persuasion.txt', import.meta.url), 'utf8');
    const flat = book.replace(/\s+/g, ' ');
    // four speeches, the longest over half of the page: "You will not find anything very agreeable in him, …"
    const page = flat.slice(flat.indexOf('"Oh! as to being Anne\'s acquaintance,"')).split(' ').slice(0, 110).join(' ');
    // the story's own words (about 140) three times: the page is about a fifth of the text, under the third that
    // would make a quotation count for the work
    const story = readFileSync(ESSAY, 'utf8')
      .replace(/"[^"]+"/, '')
      .split(/\s+/)
      .filter(Boolean);
    const own = [...story, ...story, ...story];
    const around = (lead: string) =>
      `${own.slice(0, 200).join(' ')}\n\n${lead}${page}\n\n${own.slice(200).join(' ')}\n`;
    writeFileSync(join(dir, 'page.txt'), around(''));
    writeFileSync(join(dir, 'attributed.txt'), around('As Jane Austen wrote, '));
    const copied = JSON.parse((await runCli(['analyze', 'page.txt', '--quiet'], { cwd: dir })).stdout);
    expect(copied.confidence).toBeGreaterThanOrEqual(50);
    const m = copied.matches.find((x: { document?: { title?: string } }) => /Persuasion/.test(x.document?.title ?? ''));
    expect(m).toBeDefined();
    expect(m.role).toBeUndefined();
    const quoted = JSON.parse((await runCli(['analyze', 'attributed.txt', '--quiet'], { cwd: dir })).stdout);
    expect(quoted.confidence).toBeLessThan(50);
    const q = quoted.matches.find((x: { role?: string }) => x.role === 'quotation');
    expect(q.quotation).toMatchObject({ attributed_to: 'Jane Austen' });
    expect(q.quotation.by).toContain('attribution');
  }, 60_000);
});
