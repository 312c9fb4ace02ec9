/** `trainprint fingerprint FILE`: the fingerprint summary of a file's text as JSON. */
import { createEngine } from '../library.js';
import { readWorkText } from './files.js';
import { parse, summary, UsageError } from './shared.js';

/**
 * `trainprint fingerprint FILE [--type T]`: fingerprints the file's text and prints its summary as JSON. The file is
 * read as `analyze` reads it (src/cli/files.ts): its type from `--type` or its extension (a name that says no format
 * taken is refused, not read as text), its size checked before it is read, a text file as strict UTF-8, an EPUB, PDF
 * or DOCX file extracted within the extraction's budget.
 * @example process.exitCode = await fingerprintCommand(['README.md'])
 */
export async function fingerprintCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { type: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('fingerprint needs exactly one FILE');
  const { text } = await readWorkText(positionals[0], values.type as string | undefined);
  const engine = await createEngine();
  console.log(JSON.stringify(summary(await engine.fingerprint(text)), null, 2));
  return 0;
}
