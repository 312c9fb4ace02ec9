/**
 * Hostile document files, each a few kilobytes built here, that once took a server down: an XML attribute without
 * `=` (quadratic to scan), an EPUB spine naming one chapter many times, DOCTYPE internal subsets, PDF streams that
 * inflate without bound, page trees claiming a billion pages, a page of a million text items. Each is answered
 * within the extraction's budget: a typed error naming the limit, or text no larger than the limits allow.
 */
import { deflateSync } from 'node:zlib';
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
