/**
 * `trainprint index build`: index corpus files into a dataset file (the bytes of engine.exportDataset), or an exact
 * dataset into PostgreSQL (`--into URL`), with a progress line on stderr while it reads.
 */
import {
  buildDatasetFile,
  buildPostgresDataset,
  type BuildDatasetFileResult,
  type BuildProgress,
} from '../node/index.js';
import {
  fmt,
  mb,
  optionalDecimal,
  options,
  parse,
  POSTGRES_TARGET_OPTIONS,
  QUIET,
  postgresTarget,
  printStored,
  UsageError,
} from './shared.js';

/** A progress line on stderr: redrawn in place on a TTY, a plain line every 5 s otherwise. */
function progressPrinter(quiet: boolean) {
  const tty = process.stderr.isTTY === true;
  const every = tty ? 200 : 5000;
  let last = -Infinity;
  let drawn = false;
  const line = (p: BuildProgress) => {
    const s = Math.max(p.elapsed_ms, 1) / 1000;
    const where = p.files > 1 ? ` [file ${p.file_index + 1}/${p.files}]` : '';
    return (
      `${p.phase === 'read' ? 'indexing' : 'writing'}${where} ${p.documents.toLocaleString('en-US')} docs, ${fmt(mb(p.bytes))} MB, ` +
      `${fmt(p.documents / s, 0)} docs/s, ${fmt(mb(p.bytes) / s, 2)} MB/s, ${fmt(s)} s`
    );
  };
  return {
    update(p: BuildProgress) {
      if (quiet) return;
      const now = p.elapsed_ms;
      if (p.phase === 'read' && now - last < every) return;
      if (p.phase === 'done') return;
      last = now;
      if (tty) {
        process.stderr.write(`\r\x1b[K${line(p)}`);
        drawn = true;
      } else process.stderr.write(`${line(p)}\n`);
    },
    end() {
      if (drawn) {
        process.stderr.write('\r\x1b[K');
        drawn = false;
      }
    },
  };
}

/** The line (stderr) and JSON (stdout) of a dataset file written. */
function printWritten(r: BuildDatasetFileResult): void {
  const s = Math.max(r.elapsed_ms, 1) / 1000;
  const st = r.stats;
  console.error(
    `wrote ${r.out}: ${st.kind} dataset "${st.id}", ${st.documents.toLocaleString('en-US')} documents, ${fmt(mb(st.bytes))} MB of text, ` +
      `${st.fingerprints.toLocaleString('en-US')} fingerprints, file ${fmt(mb(r.file_bytes), 2)} MB; ` +
      `${fmt(s)} s (${fmt(st.documents / s, 0)} docs/s, ${fmt(mb(st.bytes) / s, 2)} MB/s)`,
  );
  console.log(
    JSON.stringify({ out: r.out, file_bytes: r.file_bytes, elapsed_ms: Math.round(r.elapsed_ms), stats: r.stats }),
  );
}

/**
 * `trainprint index build --dataset ID [options] FILES...`: the options are checked before any file is read; the
 * file (default ID.tpds) is byte-identical for any `--threads`.
 * @example process.exitCode = await indexBuildCommand(['--dataset', 'wiki', '--out', 'wiki.tpds', 'wiki.jsonl'])
 */
export async function indexBuildCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...options([
      'dataset',
      'kind',
      'window',
      'name',
      'kb-dataset',
      'models',
      'text-field',
      'id-field',
      'format',
      'out',
      'threads',
    ]),
    ...QUIET,
    ...POSTGRES_TARGET_OPTIONS,
  });
  const dataset = values.dataset as string | undefined;
  if (!dataset) throw new UsageError('index build needs --dataset ID');
  if (positionals.length === 0) throw new UsageError('index build needs at least one input FILE');
  // the descriptor's fields, the threads and the format go as given: the build refuses them as the library does
  // (a number written in anything but decimal digits is a usage error first)
  const [threads, window] = [optionalDecimal(values, 'threads'), optionalDecimal(values, 'window')];
  const kind = values.kind as 'exact' | 'portrait' | undefined;
  const kbDataset = (values['kb-dataset'] as string | undefined)?.trim();
  const models = (values.models as string | undefined)?.split(',').map((m) => m.trim());
  const format = values.format as 'text' | 'jsonl' | 'json' | 'parquet' | undefined;
  const into = postgresTarget(values, values.out !== undefined ? '--out' : undefined);
  const out = (values.out as string | undefined) ?? `${dataset.replace(/[^A-Za-z0-9._-]+/g, '_')}.tpds`;
  const progress = progressPrinter(values.quiet === true);
  // what both builds take: the descriptor's fields, the inputs, the threads and the progress
  const common = {
    dataset,
    kind,
    window,
    name: values.name as string | undefined,
    kbDataset,
    models,
    files: positionals,
    textField: values['text-field'] as string | undefined,
    idField: values['id-field'] as string | undefined,
    format,
    threads,
    onProgress: (p: Parameters<typeof progress.update>[0]) => progress.update(p),
  };
  if (into) {
    try {
      const r = await buildPostgresDataset({ ...common, ...into });
      progress.end();
      printStored('built', r);
      return 0;
    } finally {
      progress.end();
    }
  }
  try {
    const r = await buildDatasetFile({ ...common, out });
    progress.end();
    printWritten(r);
    return 0;
  } finally {
    progress.end();
  }
}
