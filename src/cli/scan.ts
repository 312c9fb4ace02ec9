/**
 * `trainprint scan --dataset ARCHIVE[,…] INPUT… --out HITS.jsonl`: model outputs or any documents scanned against
 * datasets (scanFiles of trainprint/node, on the scan engine alone: src/node/scan/alone.ts), one JSON line per hit,
 * in input order; `--threads N` scans on N threads, `--resume` continues from the checkpoint beside the output.
 * With `--queue URL` the work goes through PostgreSQL instead (./scan-queue.ts). Progress on stderr: a bar on a
 * terminal, a plain line every few seconds otherwise, a summary line at the end. Exit codes: 0 done, 1 runtime failure, 2 usage, 130 interrupted (checkpoint written).
 */
import type { ScanFilesProgress, ScanFilesResult } from '../node/scan/alone.js';
import { bar } from './progress.js';
// the options' parsing alone (./args.ts): ./shared.ts would load the library and trainprint/node with it
import { checkOutputPath, DATASETS, fmt, mb, optionalDecimal, options, parse, QUIET, UsageError } from './args.js';

/** The exit code of a scan stopped by Ctrl-C or SIGTERM, after its checkpoint was written. */
export const INTERRUPTED = 130;

/** Seconds between two plain progress lines when stderr is not a terminal. */
const PLAIN_EVERY_MS = 5000;
/** Fewest milliseconds between two redraws of the bar. */
const REDRAW_MS = 200;
/** Erase the line and go back to its start (ECMA-48 EL, then CR). */
const CLEAR = '\r\x1b[K';

/**
 * The text of a scan's progress: items, MB/s, hits, and with a known input size a bar and the ETA.
 * @example scanProgressText({ items: 1200, bytes: 3e6, done_bytes: 3e6, hits: 4, ms: 2000, input_bytes: 6e6 }, 80, true)
 */
export function scanProgressText(p: ScanFilesProgress, columns: number, withBar: boolean): string {
  const s = Math.max(p.ms, 1) / 1000;
  const rate = mb(p.bytes) / s;
  let text = `scanned ${p.items.toLocaleString('en-US')} items · ${fmt(rate)} MB/s · ${p.hits.toLocaleString('en-US')} hits`;
  if (p.input_bytes) {
    // the share counts the items a resume skipped as done; the rate, only this run's
    const share = Math.min(0.999, p.done_bytes / p.input_bytes);
    const eta = rate > 0 ? mb(p.input_bytes - p.done_bytes) / rate : Number.NaN;
    const etaText = Number.isFinite(eta) && eta >= 0 ? ` · ETA ${duration(eta)}` : '';
    text = `${withBar ? `${bar(p.done_bytes, p.input_bytes)} ` : ''}${Math.floor(share * 100)} % · ${text}${etaText}`;
  }
  const room = Math.max(10, columns - 1);
  return text.length > room ? `${text.slice(0, room - 1)}…` : text;
}

/** Seconds as `1 h 02 min`, `3 min 05 s` or `12 s`. */
function duration(seconds: number): string {
  const t = Math.round(seconds);
  if (t >= 3600) return `${Math.floor(t / 3600)} h ${String(Math.floor((t % 3600) / 60)).padStart(2, '0')} min`;
  if (t >= 60) return `${Math.floor(t / 60)} min ${String(t % 60).padStart(2, '0')} s`;
  return `${t} s`;
}

/** The summary line at the end. */
function summaryLine(r: ScanFilesResult, out: string): string {
  const s = Math.max(r.ms, 1) / 1000;
  const resumed = r.resumed > 0 ? ` (${r.resumed.toLocaleString('en-US')} done before the resume)` : '';
  return (
    `${r.interrupted ? 'interrupted after' : 'scanned'} ${r.items.toLocaleString('en-US')} items${resumed}, ` +
    `${fmt(mb(r.bytes))} MB in ${fmt(s)} s (${fmt(mb(r.bytes) / s)} MB/s, ${fmt((r.items - r.resumed) / s, 0)} items/s), ` +
    `${r.hits.toLocaleString('en-US')} hits, ${r.skipped.toLocaleString('en-US')} items under --min-words → ${out}` +
    (r.interrupted ? ` — checkpoint written, continue with --resume` : '')
  );
}

/**
 * An integer option, or a usage error: any integer (the scan's options are bounded by the library, whose refusal
 * names the field as every door's does: `min_words: must be ≥ 1`).
 */
function integer(values: Record<string, unknown>, name: string): number | undefined {
  const v = values[name] as string | undefined;
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be an integer`);
  return n;
}

/**
 * `trainprint scan …` (see the module comment and `trainprint --help`).
 * @example process.exitCode = await scanCommand(['--dataset', 'books.tpds', 'outputs.jsonl', '--out', 'hits.jsonl'])
 */
export async function scanCommand(args: string[]): Promise<number> {
  if (args.some((a) => a === '--queue' || a.startsWith('--queue='))) {
    const { scanQueueCommand } = await import('./scan-queue.js');
    return scanQueueCommand(args);
  }
  const { values, positionals } = parse(args, {
    ...options(['min-words', 'text-field', 'id-field', 'threads', 'checkpoint-every'], ['resume', 'paraphrase']),
    out: { type: 'string', short: 'o' },
    ...DATASETS,
    ...QUIET,
  });
  const datasets = ((values.dataset as unknown as string[] | undefined) ?? []).flatMap((d) =>
    d.split(',').map((x) => x.trim()),
  );
  if (datasets.length === 0 || datasets.some((d) => d === ''))
    throw new UsageError('scan needs --dataset ARCHIVE[,ARCHIVE] (a dataset file or a postgres:// URL)');
  if (positionals.length === 0) throw new UsageError('scan needs at least one INPUT file');
  const out = values.out as string | undefined;
  if (out === undefined || out === '') throw new UsageError('scan needs --out HITS.jsonl (or - for standard output)');
  if (out === '-' && values.resume) throw new UsageError('--resume needs --out FILE (not -)');
  checkOutputPath(out, 'out');
  const minWords = integer(values, 'min-words');
  // as given: the library refuses it (its one bound, MAX_THREADS)
  const threads = optionalDecimal(values, 'threads');
  const every = optionalDecimal(values, 'checkpoint-every'); // seconds: 0.5 is half a second
  const checkpointMs = every === undefined ? undefined : every * 1000;
  if (checkpointMs !== undefined && !(checkpointMs >= 10 && checkpointMs <= 3_600_000))
    throw new UsageError('--checkpoint-every must be a number of seconds in 0.01..3600');
  for (const f of ['text-field', 'id-field'] as const)
    if (values[f] === '') throw new UsageError(`--${f} needs a field name`);

  const err = process.stderr;
  const tty = err.isTTY === true && values.quiet !== true;
  const quiet = values.quiet === true;
  // Ctrl-C (or SIGTERM): stop after the items in hand, write the checkpoint, exit 130; a second one quits at once
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(INTERRUPTED);
    stop.abort();
    if (tty) err.write(CLEAR);
    if (!quiet) err.write('stopping after the items in hand (again to quit at once)…\n');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let drawnAt = -Infinity;
  let lastPlain = performance.now();
  const onProgress = (p: ScanFilesProgress) => {
    const now = performance.now();
    if (tty) {
      if (now - drawnAt < REDRAW_MS) return;
      drawnAt = now;
      err.write(`${CLEAR}${scanProgressText(p, err.columns || 80, true)}`);
    } else if (now - lastPlain >= PLAIN_EVERY_MS) {
      lastPlain = now;
      err.write(`${scanProgressText(p, 200, false)}\n`);
    }
  };
  try {
    if (!quiet) err.write(`loading ${datasets.length === 1 ? 'the dataset' : `${datasets.length} datasets`}…\n`);
    // the file scan on the scan engine alone (dist/scan-files.js): the process compiles no service it never calls,
    // and a usage error or `--queue` none of it
    const { scanFilesAlone } = await import('../node/scan/alone.js');
    const r = await scanFilesAlone({
      datasets,
      inputs: positionals,
      out,
      ...(minWords === undefined ? {} : { minWords }),
      ...(threads === undefined ? {} : { threads }),
      ...(values['text-field'] === undefined ? {} : { textField: values['text-field'] as string }),
      ...(values['id-field'] === undefined ? {} : { idField: values['id-field'] as string }),
      resume: values.resume === true,
      ...(checkpointMs === undefined ? {} : { checkpointMs }),
      paraphrase: values.paraphrase === true,
      signal: stop.signal,
      // none with --quiet: the scan then makes no progress report for each item
      ...(quiet ? {} : { onProgress }),
    });
    if (tty) err.write(CLEAR);
    if (!quiet) err.write(`${summaryLine(r, out === '-' ? 'standard output' : out)}\n`);
    return r.interrupted ? INTERRUPTED : 0;
  } finally {
    if (tty) err.write(CLEAR);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
