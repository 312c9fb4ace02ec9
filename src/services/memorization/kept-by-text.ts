/**
 * Results an account keeps by the text they measured (./stored-extractions.ts; the audits' index of their texts,
 * with shorter keys, is ./audit-text-index.ts): under one text's prefix, one key a result,
 * `<prefix><15-digit ms kept>/<digest>`, so a scan lists them oldest first and the same result kept twice is one entry.
 *
 * @example
 * await store.transaction((tx) => keepNewest(tx, prefix, digest, result, 16))
 * const kept = await keptOfText(store, textSha256, (text) => `work-extractions/acme/${text}/`)
 */
import type { Store, Transaction } from '../../store/types.js';

/** A SHA-256 as the keys hold it: 64 lowercase hex digits. */
export const HEX64 = /^[0-9a-f]{64}$/;

/** The key part of the time a result is kept: ms, zero-padded so that key order is time order. */
export function keptStamp(ms: number = Date.now()): string {
  return String(ms).padStart(15, '0');
}

/**
 * `stamp`, or a millisecond after the latest of `held` (stamps of one text's entries that stay) when one is not
 * older: a text's newest entry is the one kept last, also when two are kept within one millisecond (their keys would
 * otherwise sort by what follows the stamp, not by when they were kept).
 * @example stampAfter(keptStamp(5), [keptStamp(3)]) // keptStamp(5)
 * @example stampAfter(keptStamp(5), [keptStamp(5)]) // keptStamp(6)
 */
export function stampAfter(stamp: string, held: Iterable<string>): string {
  let latest = '';
  for (const h of held) if (h > latest) latest = h;
  return latest < stamp ? stamp : keptStamp(Number(latest) + 1);
}

/**
 * Keeps `value` under `prefix` as `<stamp>/<digest>` (the stamp now, unless given, and after the entries that stay:
 * {@link stampAfter}): an entry of the same digest is replaced, and past `most` entries the oldest go.
 */
export async function keepNewest(
  tx: Transaction,
  prefix: string,
  digest: string,
  value: unknown,
  most: number,
  stamp: string = keptStamp(),
): Promise<void> {
  await keepNewestAll(tx, [prefix], digest, value, most, stamp);
}

/**
 * {@link keepNewest} for many prefixes in one transaction (none a prefix of another: a text's each), every prefix
 * read before any is written. A transaction's scan walks its own pending writes: written one prefix after another,
 * a batch of n prefixes cost n² key checks (3.6 s of a 100,000-work audit's index in batches of 256).
 * @example await store.transaction((tx) => keepNewestAll(tx, prefixes, digest, 1, 16, keptStamp()))
 */
export async function keepNewestAll(
  tx: Transaction,
  prefixes: readonly string[],
  digest: string,
  value: unknown,
  most: number,
  stamp: string,
): Promise<void> {
  const held: Array<Array<[string, unknown]>> = [];
  for (const prefix of prefixes) held.push(await tx.scan(prefix));
  for (const [i, prefix] of prefixes.entries()) {
    for (const [k] of held[i]) if (k.endsWith(`/${digest}`)) tx.delete(k);
    const others = held[i].filter(([k]) => !k.endsWith(`/${digest}`));
    const dropped = Math.max(0, others.length - (most - 1));
    for (const [k] of others.slice(0, dropped)) tx.delete(k);
    const stays = others.slice(dropped).map(([k]) => k.slice(prefix.length, k.indexOf('/', prefix.length)));
    tx.put(`${prefix}${stampAfter(stamp, stays)}/${digest}`, value);
  }
}

/** The entries kept for the text whose SHA-256 is `textSha256`, oldest first: none for what is not a SHA-256. */
export async function keptOfText(
  store: Store,
  textSha256: string,
  prefixOf: (textSha256: string) => string,
): Promise<Array<[string, unknown]>> {
  return HEX64.test(textSha256) ? store.scan(prefixOf(textSha256)) : [];
}
