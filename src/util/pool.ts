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
