/**
 * base64 → bytes without Buffer (Node, Deno, browsers): the native `Uint8Array.fromBase64` where
 * the runtime has it, else `atob`. Used for the embedded WebAssembly core and the starter dataset.
 * @example
 * decodeBase64('AGFzbQ==') // Uint8Array [0, 97, 115, 109]
 */
export function decodeBase64(b64: string): Uint8Array {
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (typeof fromBase64 === 'function') return fromBase64(b64);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
