/**
 * What `trainprint extract` and `audit` say while they run, on stderr: a line every twentieth of the call budget
 * (at least every 10 calls) with the calls made so far, so a run of thousands of calls is seen to move; and on Ctrl-C,
 * where the answered calls are and how to go on from them. Calls replayed from a journal are not made and not counted.
 */
import type { TargetModel } from '../library.js';
import { UsageError } from './shared.js';

/**
 * `model` counting the calls it makes (answered or failed), `say` told every `every` of them.
 * @example const counted = withCallProgress(model, 2000, 'audit', (line) => process.stderr.write(line))
 */
export function withCallProgress(
  model: TargetModel,
  budget: number,
  what: string,
  say: (line: string) => void = (line) => process.stderr.write(line),
): TargetModel {
  const every = Math.max(10, Math.ceil(budget / 20));
  let made = 0;
  const counted =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } finally {
        if (++made % every === 0) say(`${what}: ${made} calls made (budget ${budget})\n`);
      }
    };
  return {
    ...model,
    generate: counted(model.generate.bind(model)),
    ...(model.generateCall ? { generateCall: counted(model.generateCall.bind(model)) } : {}),
  };
}

/**
 * Ctrl-C during a run that keeps its answered calls in a journal: the calls in flight are aborted, the way back is
 * printed (run again with the same journal; or, with none, how to keep one), and the signal aborts the run (exit 130).
 * @example const stop = onInterrupt(journalPath, 'extraction'); try { … stop.signal … } finally { stop.dispose() }
 */
export function onInterrupt(journalPath: string | undefined, what: string): { signal: AbortSignal; dispose(): void } {
  const interrupt = new AbortController();
  const onSigint = () => {
    console.error(
      journalPath === undefined
        ? `interrupted: nothing kept (run with --journal FILE to resume an interrupted ${what})`
        : `interrupted: the answered calls are in ${journalPath}; run the same command again to resume`,
    );
    interrupt.abort(new UsageError('interrupted'));
  };
  process.once('SIGINT', onSigint);
  return { signal: interrupt.signal, dispose: () => process.removeListener('SIGINT', onSigint) };
}

/**
 * A run that keeps its answered calls in a journal, with Ctrl-C's signal ({@link onInterrupt}): an interrupted run
 * exits 130; whatever it ends with, the engine is disposed and the journal closed.
 * @example return runInterruptibly(journalPath, 'audit', engine, journal, async (signal) => (await run(signal)) ? 0 : 1)
 */
export async function runInterruptibly(
  journalPath: string | undefined,
  what: string,
  engine: { dispose(): void },
  journal: { close(): Promise<unknown> } | undefined,
  run: (signal: AbortSignal) => Promise<number>,
): Promise<number> {
  const interrupt = onInterrupt(journalPath, what);
  try {
    return await run(interrupt.signal);
  } catch (e) {
    if (interrupt.signal.aborted) return 130;
    throw e;
  } finally {
    interrupt.dispose();
    engine.dispose();
    await journal?.close();
  }
}
