/**
 * `trainprint serve` as `npm start` runs it (its default packs, no flag): a German and a Russian passage of famous
 * works over HTTP are found and name their work from the book packs (pack:books-de, pack:books-ru), and German and
 * French text of no pack — another novel of the era, another work of Goethe — answers below 50, naming nothing; an
 * English essay that quotes Faust in German is the essay quoting it, whether the lines are marked, attributed or bare.
 * The passages are the committed fixtures of test/fixtures/texts/languages/ (cut from the packs' own texts).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltCli, type ServeProcess, startServe, stopProcess } from '../fixtures/serve-process.js';

const running: ChildProcess[] = [];
let serve: ServeProcess;

const passage = (file: string, from: number, words = 80): string =>
  readFileSync(new URL(`../fixtures/texts/languages/${file}`, import.meta.url), 'utf8')
    .split(/\s+/)
    .filter(Boolean)
    .slice(from, from + words)
    .join(' ');

interface Analysis {
  confidence: number;
  matches: {
    kind: string;
    role?: string;
    quotation?: { by: string[] };
    dataset_id: string;
    document_id?: string;
    document?: { title?: string };
  }[];
}

async function analyze(content: string): Promise<Analysis> {
  const res = await fetch(`${serve.url}/api/v1/attribution/analyze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.dev}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content, content_type: 'text' }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Analysis;
}

beforeAll(async () => {
  requireBuiltCli();
  serve = await startServe(['--port', '0'], { startMs: 60_000, running });
}, 90_000);
afterAll(async () => {
  for (const p of running) await stopProcess(p);
});

describe('serve with its default packs: texts in other languages', () => {
  it('a passage of Die Verwandlung names the work from pack:books-de', async () => {
    const r = await analyze(passage('de/kafka-verwandlung.txt', 200));
    expect(r.confidence).toBeGreaterThanOrEqual(50);
    const m = r.matches.find((x) => x.kind === 'portrait');
    expect(m).toMatchObject({ dataset_id: 'pack:books-de', document_id: 'pg22367' });
    expect(m?.document?.title).toBe('Die Verwandlung');
  });

  it('a passage of Anna Karenina names the work from pack:books-ru', async () => {
    const r = await analyze(passage('ru/tolstoy-anna-karenina.txt', 100));
    expect(r.confidence).toBeGreaterThanOrEqual(50);
    expect(r.matches.find((x) => x.kind === 'portrait')).toMatchObject({
      dataset_id: 'pack:books-ru',
      document_id: 'eltec-015-anna-karenina',
    });
  });

  it('an English essay quoting Faust in German reads as the essay quoting it: with „ “, with "As Goethe wrote", bare', async () => {
    const lines = readFileSync(new URL('../fixtures/texts/languages/de/goethe-faust.txt', import.meta.url), 'utf8')
      .split('\n')
      .slice(0, 8)
      .map((l) => l.trim())
      .join(' ');
    const before =
      'I spent the winter of my second year at university reading in the library until it closed, convinced that ' +
      'enough books would eventually add up to understanding. My tutor, a patient woman who smoked on the fire ' +
      'escape between seminars, listened to my complaints about the reading list and then pointed me to the first ' +
      'scene of a play I had never opened.';
    const after =
      'I laughed out loud in the reading room. It was the first time I had seen my own worry written down by ' +
      'someone else, two hundred years earlier and in another language, and it made the worry smaller. I did not ' +
      'finish the degree in the way my parents hoped, but I kept reading, and I still keep that page marked in the ' +
      'copy she lent me and never asked me to return.';
    const cases: Array<[string, string]> = [
      [`${before} Faust begins: „${lines}“ ${after}`, 'quotation_marks'],
      [`${before} As Goethe wrote, ${lines} ${after}`, 'attribution'],
      [`${before} ${lines} ${after}`, 'other_language'],
    ];
    for (const [content, by] of cases) {
      const r = await analyze(content);
      const faust = r.matches.find((m) => m.document_id === 'pg2229');
      expect(faust, by).toMatchObject({ kind: 'portrait', role: 'quotation', dataset_id: 'pack:books-de' });
      expect(faust?.quotation?.by, by).toContain(by);
      expect(r.confidence, by).toBeLessThan(50);
    }
  });

  it('German and French text of no pack answers below 50 and names nothing', async () => {
    for (const file of [
      'de/negative-goethe-werther.txt',
      'de/negative-willkomm-weisse-sclaven.txt',
      'fr/negative-adam-mon-village.txt',
    ]) {
      const r = await analyze(passage(file, 50, 200));
      expect(r.confidence, file).toBeLessThan(50);
      expect(
        r.matches.filter((x) => x.kind === 'portrait'),
        file,
      ).toEqual([]);
    }
  });
});
