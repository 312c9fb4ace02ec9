/**
 * Node's compile cache for the CLI (src/cli/compile-cache.ts). Whether a real Node 22 or 24 leaves the cache and
 * prints the same from it is checked by the runtime smoke (test/runtime/run-all.mjs, TRAINPRINT_SMOKE_NODES).
 */
import { describe, expect, it } from 'vitest';
import { enableCompileCache } from '../../src/cli/compile-cache.js';

describe('enableCompileCache', () => {
  it("returns the cache's folder where the runtime turns it on", () => {
    const calls: unknown[][] = [];
    const dir = enableCompileCache({
      enableCompileCache: (...args: unknown[]) => {
        calls.push(args);
        return { status: 1, directory: '/tmp/node-compile-cache' };
      },
    });
    expect(dir).toBe('/tmp/node-compile-cache');
    // no folder of its own: Node's NODE_COMPILE_CACHE, else its default, decides
    expect(calls).toEqual([[]]);
  });

  it('returns nothing where the cache is off, failed, or the call throws', () => {
    const off = { status: 3, message: 'Disabled by NODE_DISABLE_COMPILE_CACHE' };
    expect(enableCompileCache({ enableCompileCache: () => off })).toBeUndefined();
    expect(enableCompileCache({ enableCompileCache: () => ({ status: 0, message: 'EACCES' }) })).toBeUndefined();
    const thrower = () => {
      throw new Error('EROFS');
    };
    expect(enableCompileCache({ enableCompileCache: thrower })).toBeUndefined();
  });

  it('does nothing on a runtime without the call (Node 20)', () => {
    expect(enableCompileCache({})).toBeUndefined();
  });
});
