/**
 * Lanes that ask in rounds: what makes an extraction's calls, and what it concludes from their answers, a function of
 * the answers alone — not of how many calls are in flight, how long each takes, or the order in which they come back.
 *
 * Each lane (a probe, a loop from a hit) is ordinary sequential code that asks one question at a time. A round is
 * every question the lanes have pending, in lane order: the round's `answer` function gets them all at once (it may
 * make the calls with any concurrency), and the answers go back to the lanes one lane at a time, in lane order, each
 * lane running until it asks again or ends before the next one is woken. So whatever a lane reads of shared state
 * (which words another loop has already reached) was written by the lanes before it in a fixed order.
 */

/** Asks one question of the current round; resolves with its answer once the round is answered. */
export type Ask<Q, A> = (question: Q) => Promise<A>;

/**
 * Run `lanes` lanes in rounds until every lane has ended. `lane(k, ask)` is lane k's code; `answer(questions)` answers
 * one round's questions, in the order given, as an array of the same length.
 * Rejects with the first error of a lane or of `answer` (no further round is asked).
 * @example
 * await runInRounds(3, async (k, ask) => { let x = k; while (x < 10) x = await ask(x) }, async (qs) => qs.map((q) => q + 3))
 */
export async function runInRounds<Q, A>(
  lanes: number,
  lane: (k: number, ask: Ask<Q, A>) => Promise<void>,
  answer: (questions: readonly Q[]) => Promise<readonly A[]>,
): Promise<void> {
  const pending: Array<{ question: Q; resolve: (a: A) => void } | null> = new Array(lanes).fill(null);
  let failure: { error: unknown } | null = null;
  let settled: (() => void) | null = null;
  /** The running lane has asked, ended or failed: the next one may run. */
  const idle = () => {
    const s = settled;
    settled = null;
    s?.();
  };
  /** Run `start` (which wakes one lane) and wait until that lane asks again or ends. */
  const step = (start: () => void) =>
    new Promise<void>((resolve) => {
      settled = resolve;
      start();
    });
  const begin = (k: number) => () => {
    const ask: Ask<Q, A> = (question) =>
      new Promise<A>((resolve) => {
        pending[k] = { question, resolve };
        idle();
      });
    lane(k, ask).then(idle, (e: unknown) => {
      failure ??= { error: e };
      idle();
    });
  };
  for (let k = 0; k < lanes; k++) {
    await step(begin(k));
    if (failure !== null) throw (failure as { error: unknown }).error;
  }
  for (;;) {
    const waiting = pending.flatMap((p, k) => (p === null ? [] : [k]));
    if (waiting.length === 0) return;
    const answers = await answer(waiting.map((k) => (pending[k] as { question: Q }).question));
    for (const [i, k] of waiting.entries()) {
      const p = pending[k] as { resolve: (a: A) => void };
      pending[k] = null;
      await step(() => p.resolve(answers[i]));
      if (failure !== null) throw (failure as { error: unknown }).error;
    }
  }
}
