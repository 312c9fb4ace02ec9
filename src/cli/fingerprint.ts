/**
 * `trainprint fingerprint FILE`: the fingerprint summary of a file's text as JSON. A text file is fingerprinted on the
 * fingerprint entry alone (dist/fingerprint.js, a seventh of the library's size): the command's process loads no
 * more code than the fingerprint needs, where the library's parse and set-up cost about 0.1 s of CPU before the first
 * byte is read. A Markdown, HTML, EPUB, PDF or DOCX file loads the library to extract its text.
 */
import { createEngine, TEXT_FILE_TYPES } from '../fingerprint-entry.js';
import { parse, UsageError } from './args.js';
import { readTextBytes, typeOfFile } from './read-file.js';
import { summary } from './summary.js';

/**
 * `trainprint fingerprint FILE [--type T]`: fingerprints the file's text and prints its summary as JSON. The file is
 * read as `analyze` reads it (src/cli/read-file.ts): its type from `--type` or its extension (a name that says no
 * format taken is refused, not read as text), its size checked before it is read, a text file as strict UTF-8, an
 * EPUB, PDF or DOCX file extracted within the extraction's budget. The fingerprint engine's `fingerprint` is the
 * library engine's (one class, the same defaults), so the summary is the same bytes whichever loads.
 * @example process.exitCode = await fingerprintCommand(['README.md'])
 */
export async function fingerprintCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { type: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('fingerprint needs exactly one FILE');
  const [file] = positionals;
  const type = typeOfFile(file, values.type as string | undefined);
  if (type === 'markdown' || type === 'html') {
    // the text a reader sees, as analyze and HTTP fingerprint it; work_hash of the file's content, markup included
    const { text, workHash } = await (await import('./files.js')).readMarkupWork(file, type);
    const fp = await (await createEngine()).fingerprint(text, { workHash: false });
    console.log(JSON.stringify(summary({ ...fp, work_hash: workHash }), null, 2));
    return 0;
  }
  // a plain text file's UTF-8 as it is, handed over below (this command never touches the buffer again): the engine
  // fingerprints it as the text it decodes to, with no string made of it and no copy kept
  const text = TEXT_FILE_TYPES.has(type)
    ? await readTextBytes(file, type)
    : (await (await import('./files.js')).readWorkText(file, type)).text;
  const engine = await createEngine();
  const fp = typeof text === 'string' ? await engine.fingerprint(text) : await engine.fingerprintHandedOver(text);
  console.log(JSON.stringify(summary(fp), null, 2));
  return 0;
}
