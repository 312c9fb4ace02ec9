/**
 * `FairQueue`: what the worker pool's and the document threads' waiting tasks are taken from — one line per owner (an
 * account), each line in order, the lines in turn. Each task may carry a cost (the worker pool's: the units of text it
 * reads), and a turn gives an owner a quantum of cost to spend (deficit round robin: M. Shreedhar and G. Varghese,
 * "Efficient fair queuing using deficit round robin", SIGCOMM 1995): with every cost 1 and a quantum of 1, one task of
 * each owner a round. With costs, an owner of one 1 MB text waits for another's 80 KB text to run before its own, not
 * the other way round: in a trace of the hostile soak, the worker pool's one thread spent the time of the slowest honest
 * text analyses on other accounts' pieces of 100 KB to 1 MB, taken one a turn like the honest 80 KB ones
 * (docs/performance.md).
 */

/** A task waiting, and its cost. */
interface Entry<T> {
  readonly item: T;
  readonly cost: number;
}

/** An owner's line: its tasks in order, and what its turns have given it and it has not spent yet. */
interface Line<T> {
  readonly waiting: Entry<T>[];
  deficit: number;
}

/**
 * Waiting items in one line per owner, taken in turn. An owner whose turn comes is given `quantum` to spend; while
 * what it has covers its first item's cost, that item is taken, else its turn ends and it goes to the back. An owner
 * whose line empties keeps nothing for later. So each owner's items come out in the order they went in, a newcomer
 * waits for at most one turn of each other owner, and no owner waits for ever: each turn adds to what it has.
 * @example
 * const q = new FairQueue<string>(); q.push('a', 'a1'); q.push('a', 'a2'); q.push('b', 'b1')
 * [q.shift(), q.shift(), q.shift()] // ['a1', 'b1', 'a2']
 * const w = new FairQueue<string>(100); w.push('big', 'b', 1000); w.push('small', 's', 50)
 * [w.shift(), w.shift()] // ['s', 'b']
 */
export class FairQueue<T> {
  /** The lines by owner, in the order their turns come (a Map keeps insertion order). */
  readonly #lines = new Map<string, Line<T>>();
  readonly #quantum: number;
  #size = 0;

  /** @param quantum what one turn gives an owner to spend, in the units of the items' costs (positive) */
  constructor(quantum = 1) {
    if (!(quantum > 0 && Number.isFinite(quantum))) throw new RangeError('quantum must be a positive number');
    this.#quantum = quantum;
  }

  /** Items waiting. */
  get length(): number {
    return this.#size;
  }

  /** `item` at the end of `owner`'s line; `cost` (at least 1: anything less counts as 1) is what taking it spends. */
  push(owner: string, item: T, cost = 1): void {
    const entry = { item, cost: cost >= 1 && Number.isFinite(cost) ? cost : 1 };
    const line = this.#lines.get(owner);
    if (line) line.waiting.push(entry);
    else this.#lines.set(owner, { waiting: [entry], deficit: 0 });
    this.#size++;
  }

  /** The next item: the first of the owner whose turn it is and whose turns have given enough for it. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    this.#skipEmptyRounds();
    for (;;) {
      const [owner, line] = this.#lines.entries().next().value as [string, Line<T>];
      const head = line.waiting[0];
      if (line.deficit >= head.cost) {
        line.waiting.shift();
        line.deficit -= head.cost;
        this.#size--;
        if (line.waiting.length === 0) this.#lines.delete(owner);
        else if (line.deficit < line.waiting[0].cost) this.#toBack(owner, line);
        return head.item;
      }
      line.deficit += this.#quantum;
      this.#toBack(owner, line);
    }
  }

  /** Takes `item` out of `owner`'s line: whether it was waiting there. */
  remove(owner: string, item: T): boolean {
    const line = this.#lines.get(owner);
    const at = line ? line.waiting.findIndex((e) => e.item === item) : -1;
    if (at < 0) return false;
    line!.waiting.splice(at, 1);
    if (line!.waiting.length === 0) this.#lines.delete(owner);
    this.#size--;
    return true;
  }

  /** Every item waiting, the queue left empty. */
  drain(): T[] {
    const all = [...this.#lines.values()].flatMap((line) => line.waiting.map((e) => e.item));
    this.#lines.clear();
    this.#size = 0;
    return all;
  }

  #toBack(owner: string, line: Line<T>): void {
    this.#lines.delete(owner);
    this.#lines.set(owner, line);
  }

  /**
   * Gives every owner at once the rounds in which no one could take an item (each owner's first item still costing
   * more than it has), so that a 40 MB item behind a quantum of 32 Ki costs one step here, not a thousand rounds.
   */
  #skipEmptyRounds(): void {
    let rounds = Number.POSITIVE_INFINITY;
    for (const line of this.#lines.values())
      rounds = Math.min(rounds, Math.ceil((line.waiting[0].cost - line.deficit) / this.#quantum));
    if (rounds > 1) for (const line of this.#lines.values()) line.deficit += (rounds - 1) * this.#quantum;
  }
}
