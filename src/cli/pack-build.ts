/**
 * `trainprint pack build MANIFEST`: a reference pack (a portrait dataset with its knowledge-base link and
 * provenance) from its manifest and a folder of texts.
 */
import { buildPackFile } from '../node/index.js';
import { fmt, mb, parse, UsageError } from './shared.js';

/**
 * `trainprint pack build MANIFEST [--texts DIR] [--out FILE] [--index FILE] [--quiet]`: every text is checked
 * against the manifest's SHA-256, and the same inputs always give the same bytes.
 * @example process.exitCode = await packBuildCommand(['packs/gutenberg/manifest.json', '--texts', 'pack-texts/gutenberg'])
 */
export async function packBuildCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    texts: { type: 'string' },
    out: { type: 'string' },
    index: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  });
  if (positionals.length !== 1) throw new UsageError('pack build needs exactly one MANIFEST');
  // the progress line is redrawn in place: on a TTY only
  const quiet = values.quiet === true || process.stderr.isTTY !== true;
  let last = 0;
  const r = await buildPackFile({
    manifest: positionals[0],
    ...(values.texts === undefined ? {} : { texts: values.texts as string }),
    ...(values.out === undefined ? {} : { out: values.out as string }),
    ...(values.index === undefined ? {} : { index: values.index as string }),
    onProgress: (p) => {
      if (quiet || (p.documents < p.total && performance.now() - last < 200)) return;
      last = performance.now();
      process.stderr.write(`\r\x1b[Kreading ${p.documents}/${p.total} texts, ${fmt(mb(p.bytes))} MB`);
    },
  });
  if (!quiet) process.stderr.write('\r\x1b[K');
  const c = r.info.counts;
  console.error(
    `wrote ${r.out}: pack "${r.info.id}" (${r.info.kb_dataset}), ${c.documents.toLocaleString('en-US')} documents, ` +
      `${c.words.toLocaleString('en-US')} words, ${c.ngrams.toLocaleString('en-US')} n-grams at window ` +
      `${r.info.window}, file ${fmt(mb(r.file_bytes), 2)} MB (${fmt(r.file_bytes / Math.max(c.ngrams, 1), 2)} B per ` +
      `n-gram), ${fmt(r.elapsed_ms / 1000)} s`,
  );
  const elapsed_ms = Math.round(r.elapsed_ms);
  console.log(JSON.stringify({ out: r.out, sha256: r.sha256, file_bytes: r.file_bytes, elapsed_ms, counts: c }));
  return 0;
}
