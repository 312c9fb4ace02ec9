// What the in-process A/B benches share: their command line, the two builds they compare (this checkout's dist and
// the one --baseline names) and the on-core clock — wall time less the thread's run-queue wait
// (/proc/thread-self/schedstat, field 2; plain wall time where that file is missing), so that a loaded machine's
// waits stay out of a measure of a few milliseconds.
import './help.mjs';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The value after `--name` on the command line, or `def`. */
export const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};

/** `[['this', dir], ['baseline', dir]]`; without `--baseline`, `usage` on stderr and exit 2. */
export function abBuilds(usage) {
  const baseline = arg('baseline');
  if (!baseline) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return [
    ['this', resolve(arg('candidate', new URL('../dist', import.meta.url).pathname))],
    ['baseline', resolve(baseline)],
  ];
}

const SCHEDSTAT = '/proc/thread-self/schedstat';
const waited = existsSync(SCHEDSTAT) ? () => Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[1]) / 1e6 : () => 0;
/** Milliseconds on a core: wall time less run-queue wait. */
export const onCore = () => performance.now() - waited();
