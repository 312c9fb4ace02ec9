/** Bounded concurrency for the calls a service makes (model calls, remote index calls). */

/**
 * `fn` over `items` with at most `limit` calls in flight; results in input order. The first rejection rejects, and
 * no call starts after it (the calls in flight finish on their own).
 * @example const answers = await mapLimit(prompts, 4, (p) => model.generate(p))
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/**
 * The indices 0…n−1 in an order whose every prefix is spread evenly over them (the bit-reversal, or van der Corput,
 * order): calls asked in it and stopped at any point (a deadline) leave an even spread unasked, never the end of a
 * text.
 * @example spreadOrder(8) // [0, 4, 2, 6, 1, 5, 3, 7]
 */
export function spreadOrder(n: number): number[] {
  let bits = 0;
  while (2 ** bits < n) bits++;
  const out: number[] = [];
  for (let i = 0; i < 2 ** bits; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) if (i & (1 << b)) r |= 1 << (bits - 1 - b);
    if (r < n) out.push(r);
  }
  return out;
}
