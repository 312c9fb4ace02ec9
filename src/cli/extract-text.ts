/**
 * `trainprint extract-text FILE [--type T] [--out FILE]`: the text analyze reads from a file — an EPUB, PDF or DOCX
 * file's extracted text, a text file's text as it is — written exactly (UTF-8, nothing added), so that its SHA-256 is
 * the `text_sha256` of the analysis's evidence bundle and its UTF-16 offsets are the result's spans.
 */
import { writeFile } from 'node:fs/promises';
import { extractDocument, TEXT_FILE_TYPES, type DocumentFormat } from '../library.js';
import { readWorkFile } from './files.js';
import { checkOutputPath, parse, UsageError } from './shared.js';

/**
 * `trainprint extract-text`: the file read as analyze reads it (same type rule, same limits), its text to `--out` or
 * standard output; a line on stderr says how many characters and sections.
 * @example process.exitCode = await extractTextCommand(['book.epub', '--out', 'book.txt'])
 */
export async function extractTextCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { type: { type: 'string' }, out: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('extract-text needs exactly one FILE');
  checkOutputPath(values.out, 'out');
  const file = positionals[0];
  const { type, content } = await readWorkFile(file, values.type as string | undefined);
  let text: string;
  let sections = 0;
  if (TEXT_FILE_TYPES.has(type)) text = content as string;
  else {
    const document = await extractDocument(content as Uint8Array, type as DocumentFormat);
    text = document.text;
    sections = document.sections.length;
  }
  const out = values.out as string | undefined;
  if (out === undefined) process.stdout.write(text);
  else await writeFile(out, text);
  const where = out === undefined ? '' : `wrote ${out}: `;
  console.error(
    `${where}${text.length.toLocaleString('en-US')} characters of ${type} text` +
      (TEXT_FILE_TYPES.has(type) ? '' : `, ${sections} sections`),
  );
  return 0;
}
