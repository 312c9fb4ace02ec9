/**
 * The one rule of every options object the library takes: a member it does not know is refused, not ignored.
 * A module of its own (only the error table beside it), so the fingerprint entry carries no more than this.
 */
import { TrainprintError } from '../errors.js';

/**
 * Refuse an options object's members outside `allowed` with INVALID_OPTIONS, so a mistyped option (`minToken` for
 * `minTokens`) is an error rather than a silently ignored default — the rule of every options object the library takes.
 * @example knownOptions({ minToken: 5 }, ['minTokens']) // throws 'unknown option "minToken" (allowed: minTokens)'
 */
export function knownOptions(options: object, allowed: readonly string[]): void {
  for (const k of Object.keys(options)) {
    if (!allowed.includes(k))
      throw new TrainprintError('INVALID_OPTIONS', `unknown option "${k}" (allowed: ${allowed.join(', ')})`);
  }
}
