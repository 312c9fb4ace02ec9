// The V8 flags `trainprint`'s one-shot commands set for themselves (src/cli/tiering.ts, oneShotTieringFlags: the same
// rule, held equal to it by test/unit/cli-tiering.test.ts), for the benches that run the library's code in a child of
// their own as cold as the CLI runs it: bytecode before V8 11.8 (Node 20), invocations from 11.8 on (Node 21 and later,
// where `--interrupt-budget` is an unknown flag).
//
//   import { oneShotFlags } from './one-shot-flags.mjs'; execFileSync(process.execPath, [...oneShotFlags(), script])
import './help.mjs';

/**
 * The one-shot tiering flags for V8 `v8Version`, as the CLI sets them.
 * @example oneShotFlags('11.3.244.8-node.38') // ['--interrupt-budget=1000000']
 */
export function oneShotFlags(v8Version = process.versions.v8) {
  const m = /^(\d+)\.(\d+)\./.exec(v8Version);
  if (m === null) return [];
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major < 11 || (major === 11 && minor < 8)) return ['--interrupt-budget=1000000'];
  return ['--invocation-count-for-turbofan=45000', '--invocation-count-for-maglev=6000'];
}
