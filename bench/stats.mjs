// The medians, the paired ratio and the rounding that the bench scripts' records and summaries are written with,
// shared so that one figure means the same in every record. Three medians, because the scripts' records have long
// used three: the textbook one (the mean of the two middle values of an even count), and, where a record has always
// named a value that was measured rather than a mean of two, the upper or the lower of the two middle values; with an
// odd count all three are the middle value.
import './help.mjs';

const ascending = (xs) => [...xs].sort((a, b) => a - b);

/**
 * The median of numbers: the middle value, or the mean of the two middle values of an even count; NaN for no values
 * (which a JSON record writes as null).
 * @example median([3, 1, 2]) // 2
 * @example median([4, 1, 3, 2]) // 2.5
 */
export function median(xs) {
  const s = ascending(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * {@link median}, but null for no values, for the records that write "not measured" as null and keep it null
 * through their arithmetic.
 * @example medianOrNull([]) // null
 * @example medianOrNull([4, 1, 3, 2]) // 2.5
 */
export function medianOrNull(xs) {
  return xs.length === 0 ? null : median(xs);
}

/**
 * The upper of the two middle values of an even count (the middle one of an odd count): always one of the values
 * measured; undefined for no values.
 * @example upperMedian([4, 1, 3, 2]) // 3
 */
export function upperMedian(xs) {
  return ascending(xs)[xs.length >> 1];
}

/**
 * The lower of the two middle values of an even count (the middle one of an odd count): always one of the values
 * measured; undefined for no values.
 * @example lowerMedian([4, 1, 3, 2]) // 2
 */
export function lowerMedian(xs) {
  return ascending(xs)[(xs.length - 1) >> 1];
}

/**
 * The median over rounds of one figure of `these` over the same figure of `baselines` in the same round: an A/B
 * run's ratio, each round's pair measured under the same load (steadier on a shared machine than a ratio of two
 * medians).
 * @example medianRatio([{ cpu_s: 2 }, { cpu_s: 3 }], [{ cpu_s: 4 }, { cpu_s: 3 }], 'cpu_s') // 0.75
 */
export function medianRatio(these, baselines, figure) {
  return median(these.map((x, i) => x[figure] / baselines[i][figure]));
}

/**
 * `x` rounded to `digits` decimals, half up as Math.round does (a record's figures, not a display string: 1.5 stays
 * a number, and 2.10 is written 2.1).
 * @example round(2.34567, 2) // 2.35
 * @example round(-0.125, 2) // -0.12
 */
export function round(x, digits) {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

/**
 * The medians of whole-process runs of one command (`cliRun`'s rows of bench/fingerprint-whole.mjs): process CPU,
 * wall, minor faults and max RSS.
 * @example processMedians([{ cpu_s: 1, wall_s: 1.2, faults: 10, max_rss_mb: 50 }]).cpu_s // 1
 */
export function processMedians(rows) {
  return {
    cpu_s: round(median(rows.map((x) => x.cpu_s)), 3),
    wall_s: round(median(rows.map((x) => x.wall_s)), 3),
    faults: median(rows.map((x) => x.faults)),
    max_rss_mb: round(median(rows.map((x) => x.max_rss_mb)), 1),
  };
}

/**
 * Each command's CPU in build `this` over build `baseline`'s, per round, then the median ({@link medianRatio}): the
 * ratios of an A/B run of whole processes, keyed `<command>_cpu_this_over_baseline`; empty with one build.
 * @example cpuRatios({ this: { scan: rowsA }, baseline: { scan: rowsB } }, ['scan']) // { scan_cpu_this_over_baseline: 0.96 }
 */
export function cpuRatios(runs, commands) {
  const ratios = {};
  if (runs.baseline === undefined) return ratios;
  for (const command of commands)
    ratios[`${command}_cpu_this_over_baseline`] = round(
      medianRatio(runs.this[command], runs.baseline[command], 'cpu_s'),
      3,
    );
  return ratios;
}
