/**
 * A Node built-in module where the runtime lends it synchronously (`process.getBuiltinModule`: Node ≥ 20.16, Deno,
 * Bun), else undefined (browsers, Workers). For the fast paths of a package that also runs in browsers, so imports no
 * `node:` module itself: the caller checks the members it uses, as the module may lack them.
 * @example const crc32 = builtinModule<{ crc32: (data: Uint8Array) => number }>('node:zlib')?.crc32
 */
export function builtinModule<T extends object>(id: string): Partial<T> | undefined {
  try {
    const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
    return typeof get === 'function' ? (get(id) as Partial<T> | undefined) : undefined;
  } catch {
    return undefined;
  }
}
