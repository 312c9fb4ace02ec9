// The web app's pure modules (no browser): span segmentation, excerpts, size checks, and a scan
// of app/ for HTML-parsing sinks (every text must go in as a text node).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { quoteMarks, textLang, tokenUnit } from '../../app/scripts.js';
import { excerpt, segments } from '../../app/spans.js';
import { bytesOverLimit, bytes, usd } from '../../app/format.js';
import { serializeError } from '../../app/backend.js';
import { fileKind, progressView } from '../../app/files.js';
import { DEMO_REFERENCE, DEMO_WORK } from '../../app/memorization-demo.js';
import { TrainprintError } from '../../src/index.js';

const webDir = fileURLToPath(new URL('../../app/', import.meta.url));

describe('segments', () => {
  it('covers the text in order and lists overlapping spans', () => {
    const s = segments(10, [
      { start: 2, end: 6 },
      { start: 4, end: 8 },
      { start: 4, end: 6 },
    ]);
    expect(s).toEqual([
      { start: 0, end: 2, covers: [] },
      { start: 2, end: 4, covers: [0] },
      { start: 4, end: 6, covers: [0, 1, 2] },
      { start: 6, end: 8, covers: [1] },
      { start: 8, end: 10, covers: [] },
    ]);
  });

  it('clips spans to the text and ignores empty ones', () => {
    expect(
      segments(5, [
        { start: -3, end: 2 },
        { start: 3, end: 3 },
        { start: 4, end: 99 },
      ]),
    ).toEqual([
      { start: 0, end: 2, covers: [0] },
      { start: 2, end: 4, covers: [] },
      { start: 4, end: 5, covers: [2] },
    ]);
    expect(segments(0, [])).toEqual([]);
  });

  it('agrees with a per-character oracle on random spans', () => {
    let seed = 7;
    const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    for (let trial = 0; trial < 200; trial++) {
      const len = rnd(40);
      const spans = Array.from({ length: rnd(6) }, () => {
        const a = rnd(45) - 2;
        return { start: a, end: a + rnd(15) };
      });
      const segs = segments(len, spans);
      let at = 0;
      for (const g of segs) {
        expect(g.start).toBe(at);
        expect(g.end).toBeGreaterThan(g.start);
        for (let c = g.start; c < g.end; c++) {
          expect(g.covers).toEqual(spans.flatMap((s, i) => (c >= s.start && c < s.end ? [i] : [])));
        }
        at = g.end;
      }
      expect(at).toBe(len);
    }
  });
});

describe('excerpt', () => {
  it('widens to word boundaries and keeps surrogate pairs whole', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta';
    const { from, to } = excerpt(text, 17, 22, 8); // 'delta' with 8 units of context
    expect(text.slice(from, to)).toBe('gamma delta epsilon');
    const emoji = 'ab😀cd😀ef';
    // a0 b1 😀2,3 c4 d5 😀6,7 e8 f9: ±2 around 5 lands on the low surrogates 3 and 7
    expect(excerpt(emoji, 5, 5, 2)).toEqual({ from: 2, to: 8 });
  });
});

describe('size checks', () => {
  it('bytesOverLimit counts UTF-8 only when the UTF-16 length cannot settle it', () => {
    expect(bytesOverLimit('abc', 9)).toBeNull();
    expect(bytesOverLimit('é'.repeat(5), 9)).toBe(10);
    expect(bytesOverLimit('é'.repeat(4), 9)).toBeNull();
    expect(bytesOverLimit('x'.repeat(11 * 1024 * 1024), 10 * 1024 * 1024)).toBe(11 * 1024 * 1024);
    expect(bytes(10 * 1024 * 1024)).toBe('10 MiB');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect([usd(0.001), usd(0), usd(1234.5), usd(null)]).toEqual(['$0.001', '$0.00', '$1,234.50', '—']);
  });

  it('serializeError keeps a TrainprintError code and detail across the worker boundary', () => {
    expect(serializeError(new TrainprintError('SNAPSHOT_INCOMPATIBLE', 'bad crc'))).toMatchObject({
      code: 'SNAPSHOT_INCOMPATIBLE',
      detail: 'bad crc',
    });
    expect(serializeError('boom')).toEqual({ code: 'INTERNAL', message: 'boom' });
  });
});

describe('files', () => {
  it('tells books and documents from text files by extension, then MIME type; refuses the rest saying why', () => {
    expect(fileKind('Persuasion.EPUB', '')).toEqual({ kind: 'document', format: 'epub' });
    expect(fileKind('paper.pdf', 'application/octet-stream')).toEqual({ kind: 'document', format: 'pdf' });
    expect(fileKind('report', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toEqual({
      kind: 'document',
      format: 'docx',
    });
    expect(fileKind('notes.md', '')).toEqual({ kind: 'text', type: 'markdown' });
    expect(fileKind('page.htm', 'text/html')).toEqual({ kind: 'text', type: 'html' });
    expect(fileKind('README', '')).toEqual({ kind: 'text', type: 'text' });
    expect(fileKind('data.csv', 'text/csv')).toEqual({ kind: 'text', type: 'text' });
    const doc = fileKind('old.doc', 'application/msword');
    expect(doc.kind).toBe('refused');
    expect(doc.kind === 'refused' && doc.message).toMatch(
      /"old\.doc" is not a file this page reads: save it as \.docx/,
    );
    const image = fileKind('cover.png', 'image/png');
    expect(image.kind === 'refused' && image.message).toMatch(/EPUB, PDF or DOCX/);
    // a text extension wins over a wrong MIME type, a known near miss over an empty one
    expect(fileKind('a.txt', 'application/octet-stream')).toEqual({ kind: 'text', type: 'text' });
    expect(fileKind('b.rtf', '').kind).toBe('refused');
  });

  it('says how far an analysis has got; only remote calls against a budget fill the bar', () => {
    expect(progressView(null)).toMatchObject({ value: null });
    expect(progressView({ phase: 'extracting', calls: 0, budget: 0, corpora: 0 })).toEqual({
      text: "Extracting the file's text…",
      value: null,
      max: 1,
    });
    expect(progressView({ phase: 'remote', calls: 6, budget: 40, corpora: 2 })).toEqual({
      text: 'Searching 2 remote corpora: 6 of 40 calls',
      value: 6,
      max: 40,
    });
    expect(progressView({ phase: 'remote', calls: 50, budget: 40, corpora: 1 })).toMatchObject({ value: 40 });
    expect(progressView({ phase: 'remote', calls: 0, budget: 0, corpora: 1 })).toMatchObject({
      text: 'Searching 1 remote corpus…',
      value: null,
    });
  });
});

describe('app/', () => {
  it('never parses strings as HTML', () => {
    const sinks = /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser)\b/;
    for (const f of readdirSync(webDir).filter((n) => n.endsWith('.ts'))) {
      const code = readFileSync(join(webDir, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(sinks.test(code), `${f} uses an HTML sink`).toBe(false);
    }
  });
});

describe('memorization demo', () => {
  it('is still the test models’ known membership: a work inserted 4 times, works neither model saw', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../models/byte-gpt-inserted/manifest.json', import.meta.url), 'utf8'),
    ) as {
      inserted: Array<{ id: string; text: string; times: number }>;
      never_seen: Array<{ id: string; text: string }>;
    };
    const work = manifest.inserted.find((d) => d.id === DEMO_WORK.id);
    expect(work).toMatchObject({ text: DEMO_WORK.text, times: 4 });
    expect(DEMO_REFERENCE).toEqual(manifest.never_seen.slice(0, DEMO_REFERENCE.length));
    expect(DEMO_REFERENCE.length).toBeGreaterThanOrEqual(10);
  });
});

describe("scripts: units, language tags and a text's own quotation marks", () => {
  it('counts characters for scripts without spaces, words for the others, both when mixed', () => {
    expect(tokenUnit('Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte')).toBe('words');
    expect(tokenUnit('吾輩は猫である。名前はまだ無い。')).toBe('characters');
    expect(tokenUnit('子曰：「學而時習之，不亦說乎？」')).toBe('characters');
    expect(tokenUnit('ภาษาไทย')).toBe('characters');
    expect(tokenUnit('Soseki opens with 吾輩は猫である and goes on')).toBe('words and characters');
    expect(tokenUnit('A long English essay that names one kanji, 猫, in passing and no other character of it')).toBe(
      'words',
    );
    expect(tokenUnit('')).toBe('words');
  });

  it('tags Japanese where kana are, Chinese for Han alone, nothing for Latin or Cyrillic', () => {
    expect(textLang('名前はまだ無い')).toBe('ja');
    expect(textLang('學而時習之')).toBe('zh');
    expect(textLang('한국어')).toBe('ko');
    expect(textLang('Über allen Gipfeln ist Ruh')).toBeNull();
    expect(textLang('Все счастливые семьи похожи друг на друга')).toBeNull();
  });

  it("finds the marks the text put around a span, even a few words outside the span's edges", () => {
    const de = 'Ich las vor: „Als Gregor Samsa eines Morgens erwachte.“ Sie lachte.';
    const from = de.indexOf('Gregor');
    expect(quoteMarks(de, from, de.indexOf('.“'))).toEqual(['„', '“']);
    const ja = '父は「吾輩は猫である。名前はまだ無い。」と読んだ。';
    expect(quoteMarks(ja, ja.indexOf('名前'), ja.indexOf('」'))).toEqual(['「', '」']);
    const fr = 'Il écrit : « Longtemps, je me suis couché de bonne heure » puis';
    expect(quoteMarks(fr, fr.indexOf('Longtemps'), fr.indexOf(' »'))).toEqual(['«', '»']);
    const kafka = '»Was ist mit mir geschehen?« dachte er.';
    expect(quoteMarks(kafka, 1, kafka.indexOf('«'))).toEqual(['»', '«']);
  });

  it('finds none across a blank line, beyond reach, or without the closing mark', () => {
    const apart = '„Ein Titel“\n\nAls Gregor Samsa eines Morgens erwachte.';
    expect(quoteMarks(apart, apart.indexOf('Als'), apart.length - 1)).toBeNull();
    const far = `„${'x '.repeat(60)}Als Gregor Samsa erwachte“`;
    expect(quoteMarks(far, far.indexOf('Als'), far.indexOf('“'))).toBeNull();
    const open = 'Er sagte: „Als Gregor Samsa eines Morgens erwachte.';
    expect(quoteMarks(open, open.indexOf('Als'), open.length)).toBeNull();
  });
});
