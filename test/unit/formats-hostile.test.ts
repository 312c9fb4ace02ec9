/**
 * Hostile document files, each a few kilobytes built here, that once took a server down: an XML attribute without
 * `=` (quadratic to scan), an EPUB spine naming one chapter many times, DOCTYPE internal subsets, PDF streams that
 * inflate without bound, page trees claiming a billion pages, a page of a million text items. Each is answered
 * within the extraction's budget: a typed error naming the limit, or text no larger than the limits allow.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { TrainprintError } from '../../src/errors.js';
import { extractDocument } from '../../src/formats/index.js';
import { attr, xmlTags } from '../../src/formats/xml.js';

/** Expects `promise` to reject with a TrainprintError of `code` whose message matches `pattern`. */
async function refused(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<TrainprintError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a TrainprintError, got a result');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TrainprintError);
  expect((error as TrainprintError).code, (error as Error).message).toBe(code);
  expect((error as Error).message).toMatch(pattern);
  return error as TrainprintError;
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A DOCX of one `word/document.xml` (no relationships: the reader falls back to the usual part name). */
function docxOf(documentXml: string): Uint8Array {
  return zipSync({ 'word/document.xml': strToU8(documentXml) }, { level: 9 });
}

const CONTAINER =
  '<container><rootfiles><rootfile full-path="OEBPS/content.opf" ' +
  'media-type="application/oebps-package+xml"/></rootfiles></container>';

/** An EPUB of the given OPF and chapter files under OEBPS/. */
function epubOf(opf: string, files: Record<string, string>): Uint8Array {
  const entries: Record<string, Uint8Array> = {
    'META-INF/container.xml': strToU8(CONTAINER),
    'OEBPS/content.opf': strToU8(opf),
  };
  for (const [name, text] of Object.entries(files)) entries[`OEBPS/${name}`] = strToU8(text);
  return zipSync(entries, { level: 9 });
}

describe('XML attributes', () => {
  it('reads attributes in one pass: names without a value, prefixes, both quotes, unquoted values', () => {
    const [tag] = xmlTags(`<w:pStyle novalue w:val='Heading1' bad=x w:other="a&amp;b"/>`);
    expect(attr(tag, 'val')).toBe('Heading1');
    expect(attr(tag, 'other')).toBe('a&b');
    expect(attr(tag, 'bad')).toBeUndefined();
    expect(attr(tag, 'novalue')).toBeUndefined();
    expect(attr({ ...tag, attributes: ' x="1" y="2' }, 'x')).toBe('1'); // an unclosed quote ends the scan
    expect(attr({ ...tag, attributes: ' x="1" y="2' }, 'y')).toBeUndefined();
    const [longName] = xmlTags(`<a xval="1" val="2"/>`);
    expect(attr(longName, 'val')).toBe('2'); // 'xval' is another name, not a prefix of 'val'
  });

  it('a 100,000-character attribute without "=" in a 1 KB DOCX: the text, in linear time', async () => {
    const docx = docxOf(
      `<w:document xmlns:w="${W}"><w:body><w:p><w:pPr><w:pStyle w:val${'a'.repeat(100_000)}/></w:pPr>` +
        '<w:r><w:t>hello world</w:t></w:r></w:p></w:body></w:document>',
    );
    expect(docx.length).toBeLessThan(2000);
    expect((await extractDocument(docx, 'docx')).text).toBe('hello world');
  });

  it('a 100,000-character attribute in an EPUB package document: the text', async () => {
    const opf =
      `<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml" x${'a'.repeat(100_000)}/>` +
      '</manifest><spine><itemref idref="c1"/></spine></package>';
    const epub = epubOf(opf, { 'c1.xhtml': '<html><body><p>hello world</p></body></html>' });
    expect(epub.length).toBeLessThan(2000);
    expect((await extractDocument(epub, 'epub')).text).toBe('hello world');
  });
});

/** `n` characters of plain words, in a paragraph of XHTML. */
function chapterOf(n: number, word = 'lorem ipsum dolor sit amet '): string {
  return `<html><body><p>${word.repeat(Math.ceil(n / word.length)).slice(0, n)}</p></body></html>`;
}

describe('EPUB spine', () => {
  it('a 1 MiB chapter listed 500 times in the spine (a 3 KB file): read once', async () => {
    const opf =
      '<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>' +
      '<item id="c2" href="C1.XHTML" media-type="application/xhtml+xml"/></manifest><spine>' +
      '<itemref idref="c1"/><itemref idref="c2"/>'.repeat(250) +
      '</spine></package>';
    const epub = epubOf(opf, { 'c1.xhtml': chapterOf((1 << 20) - 40) }); // under 1 MiB: no ratio check
    expect(epub.length).toBeLessThan(8000);
    const x = await extractDocument(epub, 'epub');
    expect(x.characters).toBeLessThan(1 << 20);
    expect(x.characters).toBeGreaterThan(1_000_000);
  });

  it('stops at maxCharacters: text past it is refused, naming the limit', async () => {
    const opf =
      '<package><manifest>' +
      [1, 2, 3].map((i) => `<item id="c${i}" href="c${i}.xhtml" media-type="application/xhtml+xml"/>`).join('') +
      '</manifest><spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/></spine></package>';
    const chapters = { 'c1.xhtml': chapterOf(40_000), 'c2.xhtml': chapterOf(40_000), 'c3.xhtml': chapterOf(40_000) };
    const epub = epubOf(opf, chapters);
    expect((await extractDocument(epub, 'epub', { maxCharacters: 130_000 })).characters).toBeLessThan(130_000);
    await refused(
      extractDocument(epub, 'epub', { maxCharacters: 100_000 }),
      'PAYLOAD_TOO_LARGE',
      /EPUB.*100000 characters.*maxCharacters/,
    );
  });

  it('counts every read of the zip against maxUncompressedBytes, the same entry read twice included', async () => {
    // the nav document is also the spine's only chapter: read for the table of contents, then for the text
    const nav = `<html><body><nav epub:type="toc"><ol><li><a href="c1.xhtml">One</a></li></ol></nav>${chapterOf(60_000).slice(12)}`;
    const opf =
      '<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml" properties="nav"/>' +
      '</manifest><spine><itemref idref="c1"/></spine></package>';
    const epub = epubOf(opf, { 'c1.xhtml': nav });
    const declared = CONTAINER.length + opf.length + nav.length;
    expect(
      (await extractDocument(epub, 'epub', { maxUncompressedBytes: 2 * declared + 10 })).characters,
    ).toBeGreaterThan(50_000);
    await refused(
      extractDocument(epub, 'epub', { maxUncompressedBytes: declared + 1000 }),
      'PAYLOAD_TOO_LARGE',
      /EPUB.*inflates to more than \d+ bytes.*maxUncompressedBytes/,
    );
  });

  it('a table of contents of 50,000 links into one chapter: fragments and headings found once per chapter', async () => {
    const body = Array.from({ length: 200 }, (_, i) => `<h2 id="s${i}">Part ${i}</h2><p>${'word '.repeat(500)}</p>`);
    const chapter = `<html><body>${body.join('')}</body></html>`;
    const links = Array.from({ length: 50_000 }, (_, i) => `<li><a href="c1.xhtml#s${i % 250}"></a></li>`).join('');
    const nav = `<html><body><nav epub:type="toc"><ol>${links}</ol></nav></body></html>`;
    const opf =
      '<package><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>' +
      '<item id="n" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>' +
      '</manifest><spine><itemref idref="c1"/></spine></package>';
    const x = await extractDocument(epubOf(opf, { 'c1.xhtml': chapter, 'nav.xhtml': nav }), 'epub');
    expect(x.sections.length).toBeGreaterThanOrEqual(200);
    expect(x.text.startsWith('Part 0')).toBe(true);
  });
});

describe('DOCX text', () => {
  it('stops at maxCharacters, inside a paragraph that never closes too', async () => {
    const runs = '<w:r><w:t>lorem ipsum dolor sit amet </w:t></w:r>'.repeat(10_000);
    const docx = docxOf(`<w:document xmlns:w="${W}"><w:body><w:p>${runs}</w:p></w:body></w:document>`);
    expect((await extractDocument(docx, 'docx')).characters).toBe(270_000);
    await refused(
      extractDocument(docx, 'docx', { maxCharacters: 100_000 }),
      'PAYLOAD_TOO_LARGE',
      /DOCX.*maxCharacters/,
    );
  });
});
