/**
 * Loading the WebAssembly core: decode the embedded bytes, compile once per variant
 * (module-scope cache), pick the SIMD build when the runtime validates it, instantiate per engine.
 * The SIMD build is embedded here; the scalar build — needed only where a runtime lacks SIMD128 or a caller turns it
 * off — is imported on demand (./wasm-scalar.generated.ts, dist/core-scalar.js), so a bundle carries one build's
 * bytes until the other is asked for.
 */
import { TrainprintError } from '../errors.js';
import { CORE, CORE_SIMD } from './wasm.generated.js';
import { decodeBase64 } from './base64.js';

/** Which build of the core to use. `'auto'` picks SIMD when `WebAssembly.validate` accepts it. */
export type SimdChoice = 'auto' | boolean;

/** The two builds shipped inside the package. */
export type CoreVariant = 'scalar' | 'simd';

const moduleCache = new Map<CoreVariant, Promise<WebAssembly.Module>>();
let simdBytes: Uint8Array | undefined;

/** The SIMD build's binary (decoded once): what {@link pickVariant} validates. */
function simdCoreBytes(): Uint8Array {
  simdBytes ??= decodeBase64(CORE_SIMD.base64);
  return simdBytes;
}

/** The binary of a variant: the SIMD build's embedded bytes, or the scalar build's, imported on demand. */
async function coreBytes(variant: CoreVariant): Promise<Uint8Array> {
  if (variant === 'simd') return simdCoreBytes();
  const { CORE_SCALAR_BASE64 } = await import('./wasm-scalar.generated.js');
  return decodeBase64(CORE_SCALAR_BASE64);
}

/** Resolve a {@link SimdChoice} to a variant; throws WASM_UNSUPPORTED when SIMD is forced but unavailable. */
export function pickVariant(simd: SimdChoice = 'auto'): CoreVariant {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.validate !== 'function') {
    throw new TrainprintError('WASM_UNSUPPORTED', 'no WebAssembly in this runtime');
  }
  if (simd === false) return 'scalar';
  const ok = WebAssembly.validate(simdCoreBytes() as BufferSource);
  if (simd === true && !ok)
    throw new TrainprintError('WASM_UNSUPPORTED', 'SIMD was requested but this runtime lacks WebAssembly SIMD128');
  return ok ? 'simd' : 'scalar';
}

/** Compile a variant once per process (the promise is cached, also across engines). */
export function compileCore(variant: CoreVariant): Promise<WebAssembly.Module> {
  let p = moduleCache.get(variant);
  if (!p) {
    p = coreBytes(variant)
      .then((bytes) => WebAssembly.compile(bytes as BufferSource))
      .catch((cause: unknown) => {
        moduleCache.delete(variant);
        throw new TrainprintError('WASM_UNSUPPORTED', `could not compile the ${variant} core`, { cause });
      });
    moduleCache.set(variant, p);
  }
  return p;
}

/** Facts about the embedded binaries (size and content hash), for diagnostics and docs/performance.md. */
export const CORE_BUILDS = Object.freeze({
  scalar: { bytes: CORE.bytes, sha256: CORE.sha256 },
  simd: { bytes: CORE_SIMD.bytes, sha256: CORE_SIMD.sha256 },
});
