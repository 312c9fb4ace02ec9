/**
 * nextMacrotask (src/util/steps.ts): a turn of the event loop in every runtime — setImmediate where there is one,
 * else a MessageChannel message (a nested setTimeout(0) is clamped to 4 ms in browsers), else setTimeout — and
 * the runners built on it give the same result sliced or in one go.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { finish, nextMacrotask, ownerTurn, PAUSE, sliced, type Steps, turnOf } from '../../src/util/steps.js';

const g = globalThis as { setImmediate?: unknown; MessageChannel?: unknown };
const saved = { setImmediate: g.setImmediate, MessageChannel: g.MessageChannel };

afterEach(() => {
  g.setImmediate = saved.setImmediate;
  g.MessageChannel = saved.MessageChannel;
  vi.restoreAllMocks();
});

/** Resolves after `fn` ran in a macrotask queued now, or says it did not run before `turn` resolved. */
async function ranBefore(turn: () => Promise<void>, queue: (fn: () => void) => void): Promise<boolean> {
  let ran = false;
  queue(() => {
    ran = true;
  });
  await turn();
  return ran;
}

describe('nextMacrotask', () => {
  it('uses setImmediate where there is one: an I/O-phase callback queued before it has run', async () => {
    const spy = vi.spyOn(globalThis, 'setImmediate');
    expect(await ranBefore(nextMacrotask, (fn) => setImmediate(fn))).toBe(true);
    expect(spy).toHaveBeenCalled();
  });

  it('without setImmediate (browsers, Deno, Workers): a MessageChannel message, closed afterwards', async () => {
    g.setImmediate = undefined;
    const Real = saved.MessageChannel as typeof MessageChannel;
    let made = 0,
      closed = 0;
    g.MessageChannel = class extends Real {
      constructor() {
        super();
        made++;
        const close = this.port1.close.bind(this.port1);
        this.port1.close = () => {
          closed++;
          close();
        };
      }
    };
    // a message posted before it is delivered before it: the turn is a real macrotask, not a microtask
    const other = new Real();
    const queued = ranBefore(nextMacrotask, (fn) => {
      other.port1.onmessage = () => {
        other.port1.close();
        fn();
      };
      other.port2.postMessage(null);
    });
    expect(await queued).toBe(true);
    for (let i = 0; i < 20; i++) await nextMacrotask();
    expect(made).toBe(21);
    expect(closed).toBe(21); // a port left open would keep a Deno process alive
  });

  it('with neither, setTimeout(0)', async () => {
    g.setImmediate = undefined;
    g.MessageChannel = undefined;
    const spy = vi.spyOn(globalThis, 'setTimeout');
    await nextMacrotask();
    expect(spy).toHaveBeenCalledWith(expect.any(Function), 0);
  });
});

describe('sliced and finish', () => {
  function* count(n: number): Steps<number> {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      sum += i;
      if (i % 10 === 0) yield PAUSE;
    }
    return sum;
  }

  it('give the same result, sliced at every pause or in one go', async () => {
    g.setImmediate = undefined; // through the MessageChannel turn
    expect(await sliced(count(1000), 0)).toBe(finish(count(1000)));
    expect(await sliced(count(1000), Infinity)).toBe(499500);
  });
});

describe('ownerTurn: sliced work takes its turns by owner', () => {
  /** Steps that pause `n` times, counting each step into `tally` under `owner`. */
  function* pauses(n: number, owner: string, tally: Map<string, number>): Steps<string> {
    for (let i = 0; i < n; i++) {
      tally.set(owner, (tally.get(owner) ?? 0) + 1);
      yield PAUSE;
    }
    return owner;
  }

  it("one owner's eight runs share one turn: another owner's run waits one of their slices per turn, not eight", async () => {
    const tally = new Map<string, number>();
    let floodStepsWhenAdaDone = -1;
    // sliceMs 0: a turn at every pause, so each step is one slice
    const flood = Array.from({ length: 8 }, () => sliced(pauses(100, 'mallory', tally), 0, turnOf('mallory')));
    const ada = sliced(pauses(10, 'ada', tally), 0, turnOf('ada')).then((who) => {
      floodStepsWhenAdaDone = tally.get('mallory') ?? 0;
      return who;
    });
    expect(await ada).toBe('ada');
    await Promise.all(flood);
    expect(tally.get('mallory')).toBe(800);
    // each turn of the loop ran one of mallory's slices and one of ada's: ada's 10 were done after about 10 of
    // mallory's (plus the first slice of each of the 8 runs, taken before their first pause), where a plain
    // macrotask per run would have let about 80 of them run first
    expect(floodStepsWhenAdaDone).toBeLessThanOrEqual(8 + 10 + 1);
  });

  it('a plain macrotask per run, for comparison (no owner): the eight runs take eight slices per turn', async () => {
    const tally = new Map<string, number>();
    let floodStepsWhenAdaDone = -1;
    const flood = Array.from({ length: 8 }, () => sliced(pauses(100, 'mallory', tally), 0, turnOf(undefined)));
    await sliced(pauses(10, 'ada', tally), 0, turnOf(undefined)).then(() => {
      floodStepsWhenAdaDone = tally.get('mallory') ?? 0;
    });
    await Promise.all(flood);
    expect(floodStepsWhenAdaDone).toBeGreaterThanOrEqual(8 * 10);
  });

  it("within an owner, the run that began first takes the owner's turns until it ends", async () => {
    const steps: string[] = [];
    function* run(name: string, n: number): Steps<string> {
      for (let i = 0; i < n; i++) {
        steps.push(name);
        yield PAUSE;
      }
      return name;
    }
    const ended: string[] = [];
    const runs = ['first', 'second', 'third'].map((name) =>
      sliced(run(name, 4), 0, turnOf('mallory')).then(() => ended.push(name)),
    );
    await Promise.all(runs);
    expect(ended).toEqual(['first', 'second', 'third']);
    // each run's first step comes before its first pause; after that the first run's turns come first
    expect(steps).toEqual([
      ...['first', 'second', 'third'],
      ...['first', 'first', 'first'],
      ...['second', 'second', 'second'],
      ...['third', 'third', 'third'],
    ]);
  });

  it('one slice a turn however many owners wait, the owners in rotation', async () => {
    // each macrotask the turns ask for is numbered; a step records the turn it ran in
    let turn = 0;
    const realImmediate = saved.setImmediate as (f: () => void) => unknown;
    g.setImmediate = (f: () => void) =>
      realImmediate(() => {
        turn++;
        f();
      });
    const ran: { owner: string; turn: number }[] = [];
    function* run(owner: string, n: number): Steps<string> {
      for (let i = 0; i < n; i++) {
        ran.push({ owner, turn });
        yield PAUSE;
      }
      return owner;
    }
    const owners = ['ada', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal', 'ivy'];
    // ada has two runs: they take ada's one place in the rotation, not two
    const runs = [...owners, 'ada'].map((owner) => sliced(run(owner, 5), 0, turnOf(owner)));
    await Promise.all(runs);
    const afterFirst = ran.filter(({ turn: t }) => t > 0); // each run's first step came before its first pause
    expect(afterFirst).toHaveLength(10 * 4);
    const turns = afterFirst.map(({ turn: t }) => t);
    expect(new Set(turns).size).toBe(turns.length); // never two slices in one turn
    // the first rounds go round all nine owners in the order they came, each once
    expect(afterFirst.slice(0, 9).map(({ owner }) => owner)).toEqual(owners);
    expect(afterFirst.slice(9, 18).map(({ owner }) => owner)).toEqual(owners);
  });

  it("wakes an owner's waiters in the order they came, one per turn, and each after other I/O callbacks", async () => {
    const order: string[] = [];
    let immediate = false;
    setImmediate(() => {
      immediate = true;
    });
    const waits = ['a1', 'a2', 'a3'].map((name) => ownerTurn('a').then(() => order.push(name)));
    const b = ownerTurn('b').then(() => order.push('b1'));
    await ownerTurn('c');
    expect(immediate).toBe(true); // a macrotask: an immediate queued before the turns were asked ran first
    await Promise.all([...waits, b]);
    expect(order).toEqual(['a1', 'b1', 'a2', 'a3']);
  });
});
