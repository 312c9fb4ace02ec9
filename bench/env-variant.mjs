// How the benches that run a build again under other environment variables read them from their command line
// (bench/fingerprint.mjs and bench/serve-cpu.mjs --env-variant, bench/fingerprint-steady.mjs --baseline-env): one
// spelling, so a run of each can be repeated with the same words.
import './help.mjs';

/**
 * Environment variables from `VAR=VALUE[,VAR=VALUE]` (a value may hold `=`, not `,`).
 * @example envVars('GLIBC_TUNABLES=glibc.malloc.hugetlb=1') // { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }
 */
export function envVars(spec) {
  return Object.fromEntries(spec.split(',').map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
}

/**
 * A named variant from `NAME:VAR=VALUE[,VAR=VALUE]`: its name and its environment variables.
 * @example envVariant('thp:GLIBC_TUNABLES=glibc.malloc.hugetlb=1') // ['thp', { GLIBC_TUNABLES: '…' }]
 */
export function envVariant(spec) {
  const [name, vars] = spec.split(/:(.*)/s);
  return [name, envVars(vars)];
}
