// Memory plan for the core.
//
// The core runs on the `stub` runtime and never calls `new`: every kernel reads and writes
// caller-chosen pointers. The linear memory is [static data | arena]. The arena starts at
// the first 64-byte boundary after `__heap_base`; the TypeScript side lays out inputs and
// outputs inside it for each call (engine/abi.ts) and asks `reserve` for room first.
// Long-lived structures (filters, later indexes) live in their own instance of the same
// module, so dropping one frees its memory with the instance — no allocator to fragment.

/** First byte of the arena (64-byte aligned so SIMD loads and cache blocks line up). */
export const ARENA_BASE: usize = (__heap_base + 63) & ~(<usize>63);

/**
 * Make sure `[ARENA_BASE, ARENA_BASE + bytes)` is backed by memory, growing it if needed.
 * Returns ARENA_BASE, or 0 when the memory cannot grow (the host reports OUT_OF_MEMORY).
 */
export function reserve(bytes: usize): usize {
  const end = ARENA_BASE + bytes;
  if (end < ARENA_BASE) return 0; // overflow of the 32-bit address space
  const have = (<usize>memory.size()) << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >>> 16);
    if (memory.grow(pages) < 0) return 0;
  }
  return ARENA_BASE;
}
