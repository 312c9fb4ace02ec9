/**
 * Node's on-disk compile cache for the command line's own modules (Node 22.1 and later).
 *
 * A CLI process compiles the JavaScript it loads from scratch each time it starts: the command's module, the library's
 * chunks, the dataset loader. `module.enableCompileCache()` (Node 22.1; https://nodejs.org/api/module.html#module-compile-cache)
 * keeps V8's code cache of each module loaded after the call in a folder, keyed by the module's source, so the next
 * process reads the compiled code instead of parsing and compiling it again — what TypeScript's `tsc` and npm's own CLI
 * do. `trainprint demo` under Node 22.23 took 0.58 s of CPU with the cache against 0.68 s without (docs/performance.md).
 * The compiler's output is a cache of the same source, so no answer changes; a cache V8 refuses (another V8, other
 * flags, an edited file) is compiled again and written anew.
 *
 * Where: `NODE_COMPILE_CACHE` when set, else `node-compile-cache` in the system's temporary folder (Node's default);
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Node 20, Deno and Bun have no such call: nothing happens there.
 */
import module from 'node:module';

/** What Node's `module.enableCompileCache` returns (Node 22.1 on): `directory` when the cache is on. */
interface CompileCacheResult {
  status: number;
  directory?: string;
  message?: string;
}

type EnableCompileCache = (dir?: string) => CompileCacheResult;

/**
 * Turns on Node's compile cache (`nodeModule`: `node:module`) for the modules this process loads from now on; the
 * cache's folder, or undefined where the runtime has none, it is disabled, or it could not be opened (a read-only
 * temporary folder: the command then runs as it would without it).
 * @example enableCompileCache() // '/tmp/node-compile-cache' under Node 22, undefined under Node 20
 */
export function enableCompileCache(
  // (Node 20's types lack the call)
  nodeModule: { enableCompileCache?: EnableCompileCache } = module as { enableCompileCache?: EnableCompileCache },
): string | undefined {
  if (typeof nodeModule.enableCompileCache !== 'function') return undefined;
  try {
    return nodeModule.enableCompileCache().directory;
  } catch {
    return undefined;
  }
}
