/**
 * One rule for files at every door (src/node/read-documents.ts, which `index build`, `scan` and `scan --queue` read
 * their inputs with): an EPUB, PDF or DOCX file among corpus files is one document, the text `extractDocument` gives
 * (what analyze reads); its size is checked on disk before any file is read (a 65 MiB sparse file is refused before
 * the first document); a hostile file is refused with the extraction's own limit, the file named; a compressed book
 * or a name of no known type is refused before anything is read. A scan finds a passage of a PDF among its inputs.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';
import { extractDocument } from '../../src/library.js';
import { readDocuments, scanFiles } from '../../src/node/index.js';
import { buildDocx, buildEpub, persuasion } from '../fixtures/documents.js';
import { refused } from '../fixtures/expect-refused.js';
import { HOSTILE_FILES } from '../fixtures/hostile-files.js';
import { buildPdf } from '../fixtures/pdf.js';

let dir: string;
const at = (f: string) => join(dir, f);
const chapters = persuasion(2);
const LINES = [
  'Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who, for his own amusement,',
  'never took up any book but the Baronetage; there he found occupation for an idle hour, and',
  'consolation in a distressed one; there his faculties were roused into admiration and respect,',
  'by contemplating the limited remnant of the earliest patents; there any unwelcome sensations,',
  'arising from domestic affairs changed naturally into pity and contempt as he turned over the',
  'almost endless creations of the last century; and there, if every other leaf were powerless,',
];

async function all(paths: string[]) {
  const docs = [];
  for await (const d of readDocuments(paths)) docs.push(d);
  return docs;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trainprint-read-books-'));
  writeFileSync(at('book.epub'), buildEpub(chapters));
  writeFileSync(at('book.docx'), buildDocx(chapters));
  writeFileSync(at('book.pdf'), buildPdf([{ lines: LINES }]));
  writeFileSync(at('note.txt'), 'A short note.');
  writeFileSync(at('bomb.pdf'), HOSTILE_FILES['flate-bomb.pdf']()[1]);
  writeFileSync(at('huge.pdf'), '%PDF-1.7\n');
  truncateSync(at('huge.pdf'), 65 * 1024 * 1024); // sparse: 65 MiB on paper, nothing on disk
  writeFileSync(at('book.pdf.gz'), new Uint8Array([0x1f, 0x8b]));
  writeFileSync(at('cover.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('corpus files: EPUB, PDF and DOCX by the rule of analyze', () => {
  it('reads each book file as one document, the text extractDocument gives, beside other files', async () => {
    const docs = await all([at('book.epub'), at('note.txt'), at('book.docx'), at('book.pdf')]);
    expect(docs.map((d) => d.id)).toEqual([at('book.epub'), at('note.txt'), at('book.docx'), at('book.pdf')]);
    expect(docs[0].text).toBe((await extractDocument(buildEpub(chapters), 'epub')).text);
    expect(docs[1].text).toBe('A short note.');
    expect(docs[2].text).toBe((await extractDocument(buildDocx(chapters), 'docx')).text);
    expect(docs[3].text).toContain('Kellynch Hall');
  });

  it('refuses a book over the file limit by its size on disk, before the first document is read', async () => {
    const e = await refused(
      all([at('note.txt'), at('huge.pdf')]),
      'PAYLOAD_TOO_LARGE',
      /huge\.pdf is 68,157,440 bytes/,
    );
    expect(e.message).toMatch(/over the 64 MiB \(67,108,864 bytes\) an EPUB, PDF or DOCX file may have/);
  });

  it("refuses a hostile book with the extraction's own limit, the file named", async () => {
    await refused(all([at('bomb.pdf')]), 'PAYLOAD_TOO_LARGE', /bomb\.pdf: the PDF file is too large: it inflates/);
  });

  it('refuses a compressed book and a name of no known type before reading anything', async () => {
    await refused(all([at('note.txt'), at('book.pdf.gz')]), 'INVALID_INPUT', /compressed PDF file is not supported/);
    await refused(
      all([at('note.txt'), at('cover.png')]),
      'INVALID_INPUT',
      /cover\.png: unknown file type.*\.epub, \.pdf/,
    );
  });

  it('a scan reads a PDF among its inputs and finds the passage a dataset holds', async () => {
    const engine = await createEngine();
    await engine.addDataset({ id: 'baronetage' }, [{ id: 'persuasion-1', text: LINES.join(' ') }]);
    writeFileSync(at('baronetage.tpds'), engine.exportDataset('baronetage'));
    engine.dispose();
    const r = await scanFiles({ datasets: [at('baronetage.tpds')], inputs: [at('book.pdf')], out: at('hits.jsonl') });
    expect(r).toMatchObject({ items: 1, hits: 1 });
  }, 120_000);
});
