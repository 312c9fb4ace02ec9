/**
 * `trainprint serve` as `npm start` runs it (its default packs, no flag): a German and a Russian passage of famous
 * works over HTTP are found and name their work from the book packs (pack:books-de, pack:books-ru), and German and
 * French text of no pack — another novel of the era, another work of Goethe — answers below 50, naming nothing.
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
  matches: { kind: string; dataset_id: string; document_id?: string; document?: { title?: string } }[];
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
