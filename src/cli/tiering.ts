/**
 * V8's tiering for a command that runs once over its input (`scan`, `fingerprint`, `analyze`, `index build` …) rather
 * than for hours (`serve`, `worker`).
 *
 * V8 optimises a function with TurboFan once its interrupt budget (bytecode executed, 66 KB in Node 20's V8 11.3) is
 * spent. That suits a page or a server, whose hot code runs for minutes; a one-shot command of this library runs a
 * large body of code (the search, the aligner, the dataset loader, the normaliser's tables) a few hundred times and
 * exits. `trainprint scan` of 10 MB of 1 kB outputs compiled 134 functions on V8's background threads: 0.40 s of the
 * process's 0.85 s of CPU, for code that then ran a few milliseconds. With a budget of 1 MB of bytecode the same scan
 * took 0.61–0.66 s of CPU (0.08 s of it compiling), and a scan of 50 MB 1.48–1.50 s against 1.66–1.75 s: a function
 * that stays hot is still optimised, a little later. The answers are the same (the compiler changes no result).
 */
import { setFlagsFromString } from 'node:v8';

/** Bytecode a function runs before V8 considers optimising it, in a one-shot command (see the module comment). */
const ONE_SHOT_INTERRUPT_BUDGET = 1_000_000;

/** Commands that serve for as long as they run: V8's default tiering suits them. */
const LONG_RUNNING = new Set(['serve', 'worker']);

/**
 * Sets V8's interrupt budget for a one-shot command `cmd`, unless the process was given one (`node
 * --interrupt-budget=…`, or in NODE_OPTIONS): the caller's choice stands.
 * @example tuneTiering('scan') // true: functions of this process are optimised after 1 MB of their bytecode ran
 */
export function tuneTiering(cmd: string): boolean {
  if (LONG_RUNNING.has(cmd)) return false;
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('interrupt-budget'));
  if (given) return false;
  setFlagsFromString(`--interrupt-budget=${ONE_SHOT_INTERRUPT_BUDGET}`);
  return true;
}
