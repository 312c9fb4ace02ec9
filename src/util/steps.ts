/**
 * Work written as steps (generators) that pause where a sliced search may give the event loop a turn:
 * the synchronous callers run them to the end with {@link finish}, `Corpus.searchDetailedAsync` awaits a
 * macrotask at a pause once its slice of time is used. One body for both, so both give the same result.
 */

/** A point where sliced work may give the event loop a turn. */
export const PAUSE = Object.freeze({ kind: 'pause' } as const);
/** {@link PAUSE}'s type. */
export type Pause = typeof PAUSE;

/** Steps that only pause and return a `T`. */
export type Steps<T> = Generator<Pause, T, unknown>;

/**
 * Work between two turns of the event loop in sliced work (`searchDetailedAsync`, analyze), in ms. A request
 * on a new connection needs several turns before it is answered (accept, read, respond, close): at 10 ms they
 * queued behind a 10 MB analysis (status p99 680 ms over new connections, bench/stall.mjs --fresh), at 3 ms
 * they do not; a turn costs microseconds, so the analysis takes no longer.
 */
export const DEFAULT_SLICE_MS = 3;

/** Pause every this many items of a long loop (well under a millisecond to a few each on the loops that use it). */
export const ITEMS_PER_PAUSE = 1 << 12;

/**
 * A macrotask boundary: other I/O callbacks (a server's other requests) run before the promise
 * resolves. A microtask (`await null`) would not let them. `setImmediate` where there is one (Node, Bun);
 * else a message on a fresh MessageChannel (browsers, Deno, Workers), as browser schedulers do: the HTML
 * standard clamps a setTimeout(0) nested five deep in timers to at least 4 ms, and an analysis awaits
 * several turns in a row (a 0.7 ms analysis took 18 ms in Chromium that way).
 * @example await nextMacrotask()
 */
export function nextMacrotask(): Promise<void> {
  const g = globalThis as { setImmediate?: (f: () => void) => unknown; MessageChannel?: typeof MessageChannel };
  const { setImmediate, MessageChannel: Channel } = g;
  if (setImmediate) return new Promise((resolve) => setImmediate(resolve));
  if (Channel) {
    return new Promise((resolve) => {
      const { port1, port2 } = new Channel();
      port1.onmessage = () => {
        port1.close(); // a closed port keeps no event loop alive (Deno)
        resolve();
      };
      port2.postMessage(null);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A waiter of {@link ownerTurn}: its place in its owner's line, and what wakes it. */
interface TurnWaiter {
  readonly order: number;
  readonly wake: () => void;
}
/**
 * The waiters of {@link ownerTurn}, one line per owner (each in `order`); the map's order is the owners' rotation:
 * the owner whose turn comes next is first, and an owner served goes to the back.
 */
const turnLines = new Map<string, TurnWaiter[]>();
let roundPending = false;
let nextOrder = 0;

/**
 * Wakes one waiter, the first of the first owner's line, puts that owner at the back of the rotation, and asks for
 * the next turn while any wait. One slice a turn, not one of each owner: nine owners' 3 ms slices woken together ran
 * in one turn of ~27 ms, in which the process answered no one (the soak's trace, docs/performance.md).
 */
function turnRound(): void {
  roundPending = false;
  const first = turnLines.entries().next();
  if (!first.done) {
    const [owner, line] = first.value;
    const { wake } = line.shift()!;
    turnLines.delete(owner);
    if (line.length > 0) turnLines.set(owner, line);
    wake();
  }
  if (turnLines.size > 0) askRound();
}

function askRound(): void {
  if (roundPending) return;
  roundPending = true;
  void nextMacrotask().then(turnRound);
}

/**
 * {@link nextMacrotask} taken in turn by owner (an account): each turn of the event loop runs one slice, of the owners
 * whose sliced work waits in rotation, so twenty analyses of one account share one owner's part of the thread, and
 * another account's analysis, waiting beside them, is not twenty slices behind them but one; and a turn holds the
 * thread for one slice however many owners wait. Within an owner the slice goes to the waiter of the lowest `order`
 * (the run that began first, see {@link turnOf}): the owner's runs end one after another, not all together at the end
 * — so their last, unsliced pieces (storing a result, answering) and the memory each holds are spread out too. Each
 * waiter still resolves after a macrotask (other I/O callbacks run first).
 * @example await ownerTurn('acme') // between two slices of acme's search
 */
export function ownerTurn(owner: string, order: number = nextOrder++): Promise<void> {
  return new Promise((wake) => {
    const waiter = { order, wake };
    const line = turnLines.get(owner);
    if (!line) turnLines.set(owner, [waiter]);
    else {
      let at = line.length;
      while (at > 0 && line[at - 1].order > order) at--;
      line.splice(at, 0, waiter);
    }
    askRound();
  });
}

/**
 * The turn the sliced work of one run of `owner` waits for: {@link ownerTurn} in the run's place (its order is taken
 * when the run begins), a plain macrotask for no owner.
 * @example const turn = turnOf(options.owner); await turn()
 */
export function turnOf(owner: string | undefined): () => Promise<void> {
  if (typeof owner !== 'string') return nextMacrotask;
  const order = nextOrder++;
  return () => ownerTurn(owner, order);
}

/**
 * Run steps with a turn of the event loop at the first pause after every `sliceMs` of work (`Infinity`:
 * in one go, as {@link finish}); `turn` waits for it (a plain macrotask, or an owner's {@link ownerTurn}).
 * @example const shared = await sliced(sharedTextSteps(matches, text.length), 3)
 */
export async function sliced<T>(
  steps: Steps<T>,
  sliceMs: number,
  turn: () => Promise<unknown> = nextMacrotask,
): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await turn();
      sliceStart = performance.now();
    }
  }
}

/**
 * Run steps that only pause to completion, in one go (the synchronous callers).
 * @example const outcome = finish(alignSteps(core, query, jobs, 50, 2000, pairs))
 */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * A function a long loop calls once per element: it resolves at once, or, once `sliceMs` of work passed since the
 * last turn, after a turn of the event loop. A catalogue holds up to 100,000 works, and each work's plan (its words
 * counted) or verdict is tens of microseconds: in one go that is seconds in which the process answers no one. The
 * stores' sliced encoding and a catalogue's sliced read-through pause the same way.
 * @example const pause = turnsEvery(3); for (const w of works) { plan(w); await pause() }
 */
export function turnsEvery(sliceMs: number): () => Promise<void> | void {
  let since = performance.now();
  let n = 0;
  return () => {
    // the clock read every 16 calls: a read costs about what a short element does
    if ((++n & 15) !== 0 || performance.now() - since < sliceMs) return;
    return nextMacrotask().then(() => {
      since = performance.now();
    });
  };
}
