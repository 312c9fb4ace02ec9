/**
 * The progress line of `trainprint analyze` on stderr: what it is doing (loading the packs, reading a file's text,
 * searching the local datasets, then the remote corpora with a bar of the calls made against their call budgets) and
 * the seconds spent, redrawn in place. Only on a terminal: where stderr is a pipe or a file (CI, `2> log`), or with
 * `--quiet`, nothing is written at all, so no escape code ever lands in a log.
 *
 * Hand-written rather than cli-progress: one line with one bar needs no dependency, and cli-progress would be a
 * runtime dependency of the whole package (the CLI's bundle keeps dependencies external), with string-width and its
 * four packages, for it.
 */

import type { AnalyzeProgress } from '../library.js';

/**
 * What the line is written to: `process.stderr`, or a test's stand-in.
 * @example const s: ProgressStream = { isTTY: true, columns: 80, write: (chunk) => out.push(chunk) }
 */
export interface ProgressStream {
  readonly isTTY?: boolean;
  /** The terminal's width in characters; 80 when unknown (or 0, as a terminal without a size says). */
  readonly columns?: number;
  write(chunk: string): unknown;
}

/**
 * The progress line of one command run.
 * @example
 * const line = progressLine(process.stderr, { quiet: false })
 * line.say('loading the reference packs')
 * await engine.analyze(request, { onProgress: (p) => line.update(p) })
 * line.end()
 */
export interface ProgressLine {
  /** Whether anything is drawn (stderr is a terminal and not `--quiet`). */
  readonly enabled: boolean;
  /** Shows a step that reports no progress of its own (loading, starting). */
  say(what: string): void;
  /** Shows the analysis's progress (at most every 100 ms, except when the phase changes). */
  update(p: AnalyzeProgress): void;
  /** Clears the line, leaving the terminal as it was; nothing more is drawn. */
  end(): void;
}

/** Characters of the bar. */
const BAR_WIDTH = 24;
/** Fewest milliseconds between two redraws of the same phase (the callback may come after every call). */
const REDRAW_MS = 100;
/** The elapsed seconds are refreshed this often while nothing reports (a long local search, loading packs). */
const TICK_MS = 500;
/** Erase the line and go back to its start (ECMA-48 EL, then CR). */
const CLEAR = '\r\x1b[K';

/** What each phase says. */
function phaseText(p: AnalyzeProgress): string {
  switch (p.phase) {
    case 'extracting':
      return "reading the file's text";
    case 'local':
      return 'searching the local datasets';
    case 'remote':
      return `searching ${p.corpora} remote ${p.corpora === 1 ? 'corpus' : 'corpora'}`;
    default:
      return 'done';
  }
}

/**
 * A bar of `done` out of `total`, `width` characters wide.
 * @example bar(10, 40, 8) // '██░░░░░░'
 */
export function bar(done: number, total: number, width = BAR_WIDTH): string {
  const share = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const full = Math.round(share * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

/**
 * The text of the line for `what` (a step, or the analysis's progress) after `ms` milliseconds, cut to `columns - 1`
 * characters so that it never wraps (a wrapped line cannot be redrawn in place).
 * @example progressText({ phase: 'remote', calls: 10, budget: 40, corpora: 2 }, 3200, 80)
 * // 'searching 2 remote corpora ██████░░░░░░░░░░░░░░░░░░ 10/40 calls · 3 s'
 */
export function progressText(what: string | AnalyzeProgress, ms: number, columns: number): string {
  const seconds = `${Math.floor(ms / 1000)} s`;
  let text: string;
  if (typeof what === 'string') text = `${what} · ${seconds}`;
  else if (what.phase === 'remote' && what.budget > 0)
    text = `${phaseText(what)} ${bar(what.calls, what.budget)} ${what.calls}/${what.budget} calls · ${seconds}`;
  else text = `${phaseText(what)} · ${seconds}`;
  const room = Math.max(10, columns - 1);
  return text.length > room ? `${text.slice(0, room - 1)}…` : text;
}

/**
 * The progress line on `stream`, drawn only when it is a terminal and `quiet` is false.
 * @example const line = progressLine(process.stderr, { quiet: values.quiet === true })
 */
export function progressLine(
  stream: ProgressStream,
  options: { readonly quiet: boolean; readonly now?: () => number },
): ProgressLine {
  const now = options.now ?? (() => performance.now());
  const enabled = !options.quiet && stream.isTTY === true;
  const start = now();
  let shown: string | AnalyzeProgress | null = null;
  let drawnAt = -Infinity;
  let ended = false;
  let timer: ReturnType<typeof setInterval> | null = null;

  const draw = (): void => {
    if (shown === null) return;
    stream.write(`${CLEAR}${progressText(shown, now() - start, stream.columns || 80)}`);
    drawnAt = now();
  };
  const show = (what: string | AnalyzeProgress, force: boolean): void => {
    if (!enabled || ended) return;
    shown = what;
    if (force || now() - drawnAt >= REDRAW_MS) draw();
    if (timer === null) {
      timer = setInterval(draw, TICK_MS);
      // the line must never keep the process alive
      (timer as { unref?: () => void }).unref?.();
    }
  };

  const end = (): void => {
    if (timer !== null) clearInterval(timer);
    timer = null;
    if (enabled && !ended && shown !== null) stream.write(CLEAR);
    ended = true;
  };
  return {
    enabled,
    say: (what) => show(what, true),
    update: (p) => {
      if (p.phase === 'done') return end();
      show(p, shown === null || typeof shown === 'string' || shown.phase !== p.phase);
    },
    end,
  };
}
