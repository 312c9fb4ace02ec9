/** Instantiate each build of the core (scalar, SIMD, debug) straight from build/out for ABI tests. */
import { readFileSync } from 'node:fs';
import { Core } from '../../../src/core/abi.js';

export const BUILDS = ['core.wasm', 'core.simd.wasm', 'core.debug.wasm'] as const;

const modules = new Map<string, WebAssembly.Module>();

/** A fresh Core of the given build file in build/out. */
export async function coreOf(file: (typeof BUILDS)[number]): Promise<Core> {
  let m = modules.get(file);
  if (!m) {
    m = new WebAssembly.Module(readFileSync(new URL(`../../../build/out/${file}`, import.meta.url)));
    modules.set(file, m);
  }
  return Core.create(m);
}

/** Copy bytes into the arena and return [ptr, len]. */
export function put(core: Core, bytes: Uint8Array): number {
  const L = core.layout();
  const p = L.take(bytes.length + 16);
  L.commit();
  core.writeBytes(p, bytes);
  return p;
}
