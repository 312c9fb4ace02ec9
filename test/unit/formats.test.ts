/**
 * Document extraction (src/formats/): EPUB and DOCX files built here with fflate's zipSync from chapters of the
 * committed Gutenberg text of *Persuasion*, PDF files written by hand (test/fixtures/pdf.ts) — the words kept in
 * order and counted, the sections, the pages, running heads removed, hyphenated words joined — and every kind of bad
 * file refused with its typed error: zip bombs, DRM, encryption, no text layer, truncation, random bytes, and random
 * damage to valid files (never anything but a TrainprintError, never a hang).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants as zlibConstants, deflateRawSync } from 'node:zlib';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import { type DocumentExtraction, extractDocument } from '../../src/formats/index.js';
import { joinPages, removeRunningLines } from '../../src/formats/pdf-layout.js';
import { coverSections } from '../../src/formats/result.js';
import { buildPdf, layoutBook } from '../fixtures/pdf.js';
import { buildDocx, buildEpub, paragraphs, persuasion } from '../fixtures/documents.js';
import { writeZip } from '../fixtures/zip.js';
import { refused } from '../fixtures/expect-refused.js';

const wordsOf = (s: string) => s.split(/\s+/).filter(Boolean);

/** The share of `source`'s words found in `extracted` in the same order (a greedy walk with a short look-ahead). */
function inOrder(source: readonly string[], extracted: readonly string[]): number {
  let j = 0;
  let found = 0;
  for (const word of source) {
    const k = extracted.indexOf(word, j);
    if (k >= 0 && k - j <= 40) {
      found++;
      j = k + 1;
    }
  }
  return found / source.length;
}

/** Sections and pages are spans of the text: in order, inside it, the sections covering it. */
function checkShape(x: DocumentExtraction): void {
  expect(x.characters).toBe(x.text.length);
  expect(x.words).toBe(wordsOf(x.text).length);
  if (x.text.length > 0) {
    expect(x.sections[0].start).toBe(0);
    expect(x.sections.at(-1)!.end).toBe(x.text.length);
  }
  x.sections.forEach((s, i) => {
    expect(s.end).toBeGreaterThan(s.start);
    if (i > 0) expect(s.start).toBe(x.sections[i - 1].end);
  });
  let last = 0;
  for (const p of x.pages ?? []) {
    expect(p.start).toBeGreaterThanOrEqual(last);
    expect(p.end).toBeGreaterThanOrEqual(p.start);
    expect(p.end).toBeLessThanOrEqual(x.text.length);
    last = p.end;
  }
}

// ————————————————————————————————————————— tests —————————————————————————————————————————

const CHAPTERS = persuasion(4);
const SOURCE_WORDS = CHAPTERS.flatMap((c) => [...wordsOf(c.title), ...wordsOf(c.text)]);

describe('EPUB', () => {
  it('reads the spine in order, with chapters from the nav document', async () => {
    const x = await extractDocument(buildEpub(CHAPTERS), 'epub');
    checkShape(x);
    expect(x.format).toBe('epub');
    expect(x.pages).toBeUndefined();
    expect(inOrder(SOURCE_WORDS, wordsOf(x.text))).toBeGreaterThanOrEqual(0.99);
    expect(Math.abs(x.words - SOURCE_WORDS.length) / SOURCE_WORDS.length).toBeLessThanOrEqual(0.02);
    expect(x.sections.map((s) => s.title)).toEqual(CHAPTERS.map((c) => c.title));
    for (const [i, s] of x.sections.entries()) {
      expect(x.text.slice(s.start, s.start + CHAPTERS[i].title.length)).toBe(CHAPTERS[i].title);
    }
    expect(x.text).not.toContain('Cover'); // the head's <title> is not text, nor the self-closed <script/> after it
    expect(x.text.startsWith('Chapter 1\n')).toBe(true);
  });

  it('reads the titles of an EPUB 2 NCX, and of the first heading where there is no table of contents', async () => {
    const ncx = await extractDocument(buildEpub(CHAPTERS, { toc: 'ncx' }), 'epub');
    const none = await extractDocument(buildEpub(CHAPTERS, { toc: 'none' }), 'epub');
    for (const x of [ncx, none]) {
      checkShape(x);
      expect(x.sections.map((s) => s.title)).toEqual(CHAPTERS.map((c) => c.title));
    }
    expect(none.text).toBe(ncx.text);
  });

  it('places chapters inside one file where the table of contents links to their ids', async () => {
    const x = await extractDocument(buildEpub(CHAPTERS, { oneFile: true }), 'epub');
    checkShape(x);
    expect(x.sections.map((s) => s.title)).toEqual(CHAPTERS.map((c) => c.title));
    for (const [i, s] of x.sections.entries()) {
      expect(x.text.slice(s.start).startsWith(CHAPTERS[i].title)).toBe(true);
    }
  });

  it('refuses DRM: rights.xml, or encryption.xml listing content documents; obfuscated fonts pass', async () => {
    const encryption = (uri: string, algorithm: string) =>
      strToU8(
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">' +
          `<enc:EncryptedData><enc:EncryptionMethod Algorithm="${algorithm}"/><enc:CipherData>` +
          `<enc:CipherReference URI="${uri}"/></enc:CipherData></enc:EncryptedData></encryption>`,
      );
    await refused(
      extractDocument(buildEpub(CHAPTERS, { extra: { 'META-INF/rights.xml': strToU8('<rights/>') } }), 'epub'),
      'INVALID_INPUT',
      /DRM.*rights\.xml/,
    );
    const aes = 'http://www.w3.org/2001/04/xmlenc#aes128-cbc';
    const locked = { 'META-INF/encryption.xml': encryption('OEBPS/text/chapter%202.xhtml', aes) };
    await refused(extractDocument(buildEpub(CHAPTERS, { extra: locked }), 'epub'), 'INVALID_INPUT', /DRM/);
    const fonts = { 'META-INF/encryption.xml': encryption('OEBPS/fonts/a.otf', 'http://www.idpf.org/2008/embedding') };
    expect((await extractDocument(buildEpub(CHAPTERS, { extra: fonts }), 'epub')).sections).toHaveLength(4);
  });

  it('names what is missing: container.xml, the OPF, a spine', async () => {
    const epub = unzipSync(buildEpub(CHAPTERS)); // rebuilt below without one entry or another
    const without = (name: string) => zipSync(Object.fromEntries(Object.entries(epub).filter(([n]) => n !== name)));
    await refused(extractDocument(without('META-INF/container.xml'), 'epub'), 'INVALID_INPUT', /container\.xml/);
    await refused(extractDocument(without('OEBPS/content.opf'), 'epub'), 'INVALID_INPUT', /OPF/);
    const noSpine = { ...epub, 'OEBPS/content.opf': strToU8('<package><manifest/><spine/></package>') };
    await refused(extractDocument(zipSync(noSpine), 'epub'), 'INVALID_INPUT', /spine/);
  });
});

describe('DOCX', () => {
  it('reads paragraphs in order as lines, headings as sections', async () => {
    const x = await extractDocument(buildDocx(CHAPTERS), 'docx');
    checkShape(x);
    expect(x.format).toBe('docx');
    const source = ['Persuasion', 'By', 'Jane', 'Austen', ...SOURCE_WORDS];
    expect(inOrder(source, wordsOf(x.text))).toBeGreaterThanOrEqual(0.99);
    expect(Math.abs(x.words - source.length) / source.length).toBeLessThanOrEqual(0.02);
    expect(x.sections.map((s) => s.title)).toEqual(['Persuasion', ...CHAPTERS.map((c) => c.title)]);
    for (const s of x.sections) expect(x.text.slice(s.start).startsWith(s.title)).toBe(true);
    expect(x.text.split('By Jane Austen')).toHaveLength(2); // the fallback copy is not read
    expect(x.text).not.toContain('Struck out');
    expect(x.text.startsWith('Persuasion\nBy Jane Austen\n\nChapter 1\n')).toBe(true);
    const firstParagraph = paragraphs(CHAPTERS[0].text)[0].replace(/\s+/g, ' ');
    expect(x.text).toContain(`Chapter 1\n${firstParagraph}\n`);
  });

  it('finds heading styles by their names in styles.xml (a localised style id)', async () => {
    const x = await extractDocument(buildDocx(CHAPTERS, { headingId: 'berschrift1' }), 'docx');
    expect(x.sections.map((s) => s.title)).toEqual(['Persuasion', ...CHAPTERS.map((c) => c.title)]);
  });

  it('refuses an encrypted Office file, and a zip without a main document', async () => {
    const compound = new Uint8Array(4096);
    compound.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    await refused(extractDocument(compound, 'docx'), 'INVALID_INPUT', /encrypted/);
    const other = zipSync({ 'readme.txt': strToU8('not a document') });
    await refused(extractDocument(other, 'docx'), 'INVALID_INPUT', /word\/document\.xml.*missing/);
  });
});

const PDF_CHAPTERS = persuasion(3);
const PDF_BOOK = layoutBook('Persuasion', PDF_CHAPTERS, { hyphenateEvery: 4 });
const PDF = buildPdf(PDF_BOOK.pages, { outline: PDF_BOOK.chapters, title: 'Persuasion' });

describe('PDF', () => {
  it('reads the text layer page by page, heads and page numbers removed, hyphens joined', async () => {
    const x = await extractDocument(PDF, 'pdf');
    checkShape(x);
    expect(x.format).toBe('pdf');
    const source = PDF_CHAPTERS.flatMap((c) => [...wordsOf(c.title), ...wordsOf(c.text)]);
    expect(inOrder(source, wordsOf(x.text))).toBeGreaterThanOrEqual(0.99);
    expect(Math.abs(x.words - source.length) / source.length).toBeLessThanOrEqual(0.02);
    expect(x.pages?.map((p) => p.number)).toEqual(PDF_BOOK.pages.map((_, i) => i + 1));
    // the running head (the title and the page number) and the footer ("- 12 -") are gone
    expect(x.text).not.toContain('PERSUASION');
    expect(x.text).not.toMatch(/^- \d+ -$/m);
    expect(PDF_BOOK.hyphenated.length).toBeGreaterThanOrEqual(5);
    const words = new Set(wordsOf(x.text).map((w) => w.replace(/[^a-z]/gi, '')));
    for (const word of PDF_BOOK.hyphenated) expect(words.has(word), word).toBe(true);
    expect(x.text).not.toMatch(/[a-z]-\n[a-z]/);
    // each page's text is what was laid out on it
    const second = PDF_BOOK.pages[1].lines!.filter(Boolean);
    const page = x.pages![1];
    expect(x.text.slice(page.start, page.end).split('\n')[0].split(' ')[0]).toBe(second[0].split(' ')[0]);
    // paragraphs: a blank line where the layout left a gap
    expect(x.text).toContain(`Chapter 1\n\n${paragraphs(PDF_CHAPTERS[0].text)[0].split(/\s+/).slice(0, 3).join(' ')}`);
  });

  it('takes its sections from the outline, at the pages the entries open', async () => {
    const x = await extractDocument(PDF, 'pdf');
    expect(x.sections.map((s) => s.title)).toEqual(PDF_CHAPTERS.map((c) => c.title));
    for (const [i, s] of x.sections.entries()) {
      expect(s.start).toBe(x.pages![PDF_BOOK.chapters[i].page].start);
      expect(x.text.slice(s.start).startsWith(PDF_CHAPTERS[i].title)).toBe(true);
    }
  });

  it('refuses an encrypted PDF that needs a password, and one with no text layer', async () => {
    const encrypted = buildPdf([{ lines: ['A secret.'] }], { encrypt: true });
    await refused(extractDocument(encrypted, 'pdf'), 'INVALID_INPUT', /encrypted.*password/);
    await refused(extractDocument(buildPdf([{ image: true }, {}]), 'pdf'), 'INVALID_INPUT', /no text layer/);
  });

  it('lays out lines: alternating running heads go, a word carried over a page joins', () => {
    const page = (n: number) => [
      { text: n % 2 ? 'PERSUASION' : `CHAPTER ${n}`, y: 760, size: 9 },
      { text: `line one of page ${n}`, y: 700, size: 11 },
      { text: n === 2 ? 'it ends with a hyphen-' : 'a line', y: 686, size: 11 },
      { text: String(n), y: 40, size: 9 },
    ];
    const pages = removeRunningLines([1, 2, 3, 4, 5, 6].map(page));
    expect(pages.flat().map((l) => l.text)).not.toContain('PERSUASION');
    // a chapter's title opening half the pages of a short book, in larger type, is kept
    const titled = removeRunningLines(
      [1, 2, 3, 4, 5].map((n) => [
        ...(n % 2 ? [{ text: `Chapter ${n}`, y: 740, size: 16 }] : []),
        { text: `the text of page ${n}`, y: 700, size: 11 },
        { text: 'and more of it', y: 686, size: 11 },
      ]),
    );
    expect(titled.flat().filter((l) => l.text.startsWith('Chapter'))).toHaveLength(3);
    expect(pages.flat().some((l) => /^(CHAPTER )?\d+$/.test(l.text))).toBe(false);
    const joined = joinPages([[{ text: 'an exam-', y: 700, size: 11 }], [{ text: 'ple of it', y: 700, size: 11 }]]);
    expect(joined.text).toBe('an example of it');
    expect(joined.pages).toEqual([
      { number: 1, start: 0, end: 7 },
      { number: 2, start: 7, end: 16 },
    ]);
    expect(
      joinPages([
        [
          { text: 'a well-', y: 700, size: 11 },
          { text: 'Known', y: 686, size: 11 },
        ],
      ]).text,
    ).toBe('a well-\nKnown');
  });
});

describe('sections', () => {
  it('cover the text: an untitled lead, blank sections taking the next title', () => {
    expect(coverSections('ab cd', [{ title: 'B', start: 3 }])).toEqual([
      { title: '', start: 0, end: 3 },
      { title: 'B', start: 3, end: 5 },
    ]);
    expect(
      coverSections('\n\nab', [
        { title: 'Part', start: 0 },
        { title: 'One', start: 2 },
      ]),
    ).toEqual([{ title: 'One', start: 0, end: 4 }]);
    expect(coverSections('', [{ title: 'x', start: 0 }])).toEqual([]);
  });
});

// ————————————————————————————————————————— bad input —————————————————————————————————————————

/**
 * A deflate stream of `mib` MiB of zeros, ≈ 1 KiB per MiB, made in a moment: one MiB deflated and flushed to a byte
 * boundary (its matches reach back one byte only), repeated, then an empty final block.
 */
function zerosDeflated(mib: number): Uint8Array {
  const segment = deflateRawSync(new Uint8Array(1 << 20), { level: 9, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  const out = new Uint8Array(segment.length * mib + 2);
  for (let i = 0; i < mib; i++) out.set(segment, i * segment.length);
  out.set([0x03, 0x00], segment.length * mib);
  return out;
}

describe('bad input', () => {
  it('refuses random bytes, truncated files and files over maxBytes with typed errors', async () => {
    let seed = 7;
    const noise = Uint8Array.from({ length: 5000 }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) & 255);
    await refused(extractDocument(noise, 'epub'), 'INVALID_INPUT', /EPUB.*not a zip/);
    await refused(extractDocument(noise, 'docx'), 'INVALID_INPUT', /DOCX.*not a zip/);
    await refused(extractDocument(noise, 'pdf'), 'INVALID_INPUT', /not a PDF/);
    await refused(extractDocument(new Uint8Array(0), 'pdf'), 'INVALID_INPUT', /not a PDF/);
    const epub = buildEpub(CHAPTERS);
    await refused(extractDocument(epub.slice(0, epub.length >> 1), 'epub'), 'INVALID_INPUT', /truncated/);
    const docx = buildDocx(CHAPTERS);
    await refused(extractDocument(docx.slice(0, docx.length - 30), 'docx'), 'INVALID_INPUT', /truncated/);
    await refused(extractDocument(PDF.slice(0, PDF.length >> 1), 'pdf'), 'INVALID_INPUT', /truncated/);
    await refused(extractDocument(PDF, 'pdf', { maxBytes: 1000 }), 'PAYLOAD_TOO_LARGE', /over the limit of 1000/);
  });

  it('checks its arguments', async () => {
    await refused(extractDocument(PDF, 'rtf' as never), 'INVALID_INPUT', /format must be one of/);
    await refused(extractDocument('text' as never, 'pdf'), 'INVALID_INPUT', /Uint8Array/);
    await refused(extractDocument(PDF, 'pdf', { maxBytes: -1 }), 'INVALID_OPTIONS', /maxBytes/);
    await refused(extractDocument(PDF, 'pdf', { pages: 3 } as never), 'INVALID_OPTIONS', /unknown option "pages"/);
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(extractDocument(PDF, 'pdf', { signal: stop.signal })).rejects.toThrow('stopped');
    const later = new AbortController();
    const reading = extractDocument(PDF, 'pdf', { signal: later.signal });
    later.abort(new Error('stopped on the way'));
    await expect(reading).rejects.toThrow('stopped on the way');
  });

  it('refuses zip bombs from the central directory before inflating', async () => {
    const container = { name: 'META-INF/container.xml', data: strToU8('<container/>') };
    // declared sizes over the limit (256 MiB by default): nothing is inflated
    const big = { compressed: new Uint8Array(750_000), declaredSize: 140 << 20 }; // a plausible ratio, 187:1
    const declared = writeZip([container, { name: 'a.bin', ...big }, { name: 'b.bin', ...big }]);
    await refused(extractDocument(declared, 'epub'), 'PAYLOAD_TOO_LARGE', /more than 268435456 bytes/);
    // a ratio no markup reaches: 64 MiB of zeros in 64 KiB
    const ratio = writeZip([container, { name: 'z.xhtml', compressed: zerosDeflated(64), declaredSize: 64 << 20 }]);
    await refused(extractDocument(ratio, 'epub'), 'PAYLOAD_TOO_LARGE', /ratio over 200:1/);
    // many entries sharing one compressed stream (the non-recursive zip bomb)
    const shared = writeZip([
      container,
      { name: 'a.xhtml', data: new Uint8Array(1000) },
      { name: 'b.xhtml', sameDataAs: 'a.xhtml' },
    ]);
    await refused(extractDocument(shared, 'epub'), 'INVALID_INPUT', /overlap.*zip bomb/);
    const many = writeZip(Array.from({ length: 20_001 }, (_, i) => ({ name: `f${i}`, store: true })));
    await refused(extractDocument(many, 'docx'), 'PAYLOAD_TOO_LARGE', /20001 entries/);
    // the caller's own limit
    const epub = buildEpub(CHAPTERS);
    await refused(extractDocument(epub, 'epub', { maxUncompressedBytes: 50_000 }), 'PAYLOAD_TOO_LARGE', /50000/);
  });

  it('stops inflating an entry that outgrows what it declares', async () => {
    const lie = writeZip([{ name: 'META-INF/container.xml', compressed: zerosDeflated(4096), declaredSize: 1000 }]);
    // the refusal names the declared size: the entry was cut where it outgrew it, not inflated whole (4 GiB)
    await refused(extractDocument(lie, 'epub'), 'INVALID_INPUT', /inflates past the 1000 bytes it declares/);
    const encrypted = writeZip([{ name: 'word/document.xml', data: strToU8('<w:document/>'), flags: 1 }]);
    await refused(extractDocument(encrypted, 'docx'), 'INVALID_INPUT', /encrypted/);
    const corrupt = buildDocx(CHAPTERS);
    corrupt[corrupt.length >> 1] ^= 0xff;
    await refused(extractDocument(corrupt, 'docx'), 'INVALID_INPUT', /corrupt/);
  });

  it('never throws anything but a TrainprintError on damaged files, and never hangs', async () => {
    const samples = {
      epub: buildEpub(persuasion(2)),
      docx: buildDocx(persuasion(2)),
      pdf: buildPdf(layoutBook('Persuasion', persuasion(1)).pages.slice(0, 3)),
    } as const;
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return Math.floor((seed / 2 ** 32) * n);
    };
    const outcomes: Record<string, number> = {};
    for (const [format, valid] of Object.entries(samples) as Array<[keyof typeof samples, Uint8Array]>) {
      for (let trial = 0; trial < 40; trial++) {
        const bytes = valid.slice();
        let damaged = bytes;
        const kind = trial % 3;
        if (kind === 0) damaged = bytes.slice(0, random(bytes.length));
        else if (kind === 1) for (let k = 0; k <= random(8); k++) bytes[random(bytes.length)] ^= 1 << random(8);
        else {
          const at = random(bytes.length);
          bytes.fill(random(256), at, Math.min(bytes.length, at + 1 + random(64)));
        }
        const outcome = await Promise.race([
          extractDocument(damaged, format).then(
            (x) => (checkShape(x), 'read'),
            (e: unknown) => {
              expect(e, String(e)).toBeInstanceOf(TrainprintError);
              expect(['INVALID_INPUT', 'PAYLOAD_TOO_LARGE'], String(e)).toContain((e as TrainprintError).code);
              return (e as TrainprintError).code;
            },
          ),
          new Promise<string>((resolve) => setTimeout(() => resolve('hung'), 10_000)),
        ]);
        expect(outcome, `${format} trial ${trial}`).not.toBe('hung');
        outcomes[`${format} ${outcome}`] = (outcomes[`${format} ${outcome}`] ?? 0) + 1;
      }
    }
    // the damage is real: every format refused some of the files
    for (const format of Object.keys(samples)) expect(outcomes[`${format} INVALID_INPUT`]).toBeGreaterThan(0);
  });
});

describe('loading', () => {
  it('imports fflate and pdf.js only with a dynamic import (the bundles stay as they are)', () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
    const eager = files(src)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) =>
        /^\s*(import|export)\s(?!type\s)[^;]*?from\s*['"](fflate|pdfjs-dist)/m.test(readFileSync(f, 'utf8')),
      );
    expect(eager).toEqual([]);
  });
});
