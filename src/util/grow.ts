/** Typed arrays that grow by doubling: shared by the builders that append to typed columns. */

type Growable = Uint8Array | Uint32Array | Int32Array | BigUint64Array;

/**
 * `a` if it holds `need` elements, else a new array of the same type with room for at least `need`
 * (twice `a`'s length when that is more: appends stay amortised linear) holding `a`'s first `used`.
 * @example let cols = new Uint32Array(4); cols = withRoom(cols, 9, 4) // length 9, first 4 kept
 */
export function withRoom<T extends Growable>(a: T, need: number, used = a.length): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (length: number) => T)(Math.max(need, 2 * a.length));
  b.set(a.subarray(0, used) as never);
  return b;
}
