/**
 * One word count everywhere: a file's words (the document readers), a section's (an analysis), a scan hit's and a
 * remote document's are counted by one function (src/util/space.ts), the runs of non-space a reader and `wc -w`
 * count — so that a book has one number of words wherever it is shown.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { extractDocument } from '../../src/formats/index.js';
import { countWords as formatsCount } from '../../src/formats/result.js';
import { countWords as remoteCount } from '../../src/remote/search.js';
import { countWords as scanCount } from '../../src/services/scan/index.js';
import { countWords } from '../../src/util/space.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
/** A DOCX of one paragraph per line of `lines`. */
const docxOf = (lines: readonly string[]) =>
  zipSync({
    '[Content_Types].xml': strToU8('<Types/>'),
    'word/document.xml': strToU8(
      `<w:document xmlns:w="${W}"><w:body>${lines.map((l) => `<w:p><w:r><w:t xml:space="preserve">${l}</w:t></w:r></w:p>`).join('')}</w:body></w:document>`,
    ),
  });

describe('one word count', () => {
  it('is one function, whichever module a caller imports it from', () => {
    expect(formatsCount).toBe(countWords);
    expect(remoteCount).toBe(countWords);
    expect(scanCount).toBe(countWords);
  });

  it("a file's words are its text's runs of non-space: em dashes, hyphens and apostrophes join, no-break spaces part", async () => {
    const lines = [
      'It was the best of times—it was the worst of times; a well-known line, isn’t it?',
      'Mr. Lorry’s “Recalled to life”\u00a0— and so on … 1775.',
    ];
    const x = await extractDocument(docxOf(lines), 'docx');
    const wc = (x.text.match(/\S+/g) ?? []).length;
    expect(x.words).toBe(wc);
    expect(countWords(x.text)).toBe(wc);
    // a slice counts as the same text cut there (a section's words, a scan hit's)
    const cut = x.text.indexOf('Mr.');
    expect(countWords(x.text, 0, cut) + countWords(x.text, cut)).toBe(wc);
  });
});
