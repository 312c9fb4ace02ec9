/**
 * V8's tiering for a command that runs once over its input (`scan`, `fingerprint`, `analyze`, `index build` …) rather
 * than for hours (`serve`, `worker`).
 *
 * V8 optimises a function once it has run enough: in Node 20's V8 11.3, once its interrupt budget (bytecode executed,
 * 66 KB) is spent; from V8 11.8 (Node 21 on), after a number of invocations scaled by its size (3,000 for TurboFan, 400
 * for Maglev). That suits a page or a server, whose hot code runs for minutes; a one-shot command of this library runs a
 * large body of code (the search, the aligner, the dataset loader, the normaliser's tables) a few hundred times and
 * exits. `trainprint scan` of 10 MB of 1 kB outputs compiled 134 functions on V8's background threads: 0.40 s of the
 * process's 0.85 s of CPU, for code that then ran a few milliseconds. With a budget of 1 MB of bytecode the same scan
 * took 0.61–0.66 s of CPU (0.08 s of it compiling), and a scan of 50 MB 1.48–1.50 s against 1.66–1.75 s: a function
 * that stays hot is still optimised, a little later. Node 22 with its defaults ran that scan in 1.26 s of CPU (median of
 * 7), and in 0.87 s with both invocation counts 15 times theirs, as the budget is 15 times Node 20's. The answers are
 * the same (the compiler changes no result).
 */
import { setFlagsFromString } from 'node:v8';

/** The V8 flags a process may be given that set when functions are optimised: the caller's choice then stands. */
const TIERING_FLAGS = ['interrupt-budget', 'invocation-count-for-turbofan', 'invocation-count-for-maglev'];

/** Commands that serve for as long as they run: V8's default tiering suits them. */
const LONG_RUNNING = new Set(['serve', 'worker']);

/**
 * The V8 flags that make a one-shot command's functions optimised about 15 times later than V8's defaults, in the
 * terms of V8 `v8Version` (`process.versions.v8`): bytecode before V8 11.8, invocations from 11.8 on. Setting a flag
 * V8 does not know prints an error on every run (`--interrupt-budget` is gone from 11.8 on). Checked against the flags
 * of Node 20.20 (V8 11.3), 21.7 (11.8), 22.23 (12.4), 23.11 (12.9) and 24.22 (13.6); no Node release has had a V8
 * between 11.3 and 11.8. None for a version that is not V8's `major.minor…`.
 * @example oneShotTieringFlags('11.3.244.8-node.38') // ['--interrupt-budget=1000000']
 * @example oneShotTieringFlags('12.4.254.21-node.33') // ['--invocation-count-for-turbofan=45000', '--invocation-count-for-maglev=6000']
 */
export function oneShotTieringFlags(v8Version: string): string[] {
  const m = /^(\d+)\.(\d+)\./.exec(v8Version);
  if (m === null) return [];
  const major = Number(m[1]),
    minor = Number(m[2]);
  // 15 times the defaults: Node 20's 66 KB of bytecode; 3,000 and 400 invocations from V8 11.8 to 13.6
  if (major < 11 || (major === 11 && minor < 8)) return ['--interrupt-budget=1000000'];
  return ['--invocation-count-for-turbofan=45000', '--invocation-count-for-maglev=6000'];
}

/**
 * Sets V8's tiering for a one-shot command `cmd` ({@link oneShotTieringFlags}), unless the process was given a flag of
 * its own that sets it (`node --interrupt-budget=…`, `--invocation-count-for-turbofan=…`, or in NODE_OPTIONS): the
 * caller's choice stands. True when it set them.
 * @example tuneTiering('scan') // true: functions of this process are optimised about 15 times later than by default
 */
export function tuneTiering(cmd: string, v8Version: string = process.versions.v8): boolean {
  if (LONG_RUNNING.has(cmd)) return false;
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) =>
    TIERING_FLAGS.some((flag) => a.includes(flag)),
  );
  if (given) return false;
  const flags = oneShotTieringFlags(v8Version);
  if (flags.length === 0) return false;
  setFlagsFromString(flags.join(' '));
  return true;
}
