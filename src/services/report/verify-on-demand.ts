/**
 * {@link verifyEvidenceBundle}, whose code (./verify.ts through ./operations.ts) loads on the first call.
 */
import type { EvidenceBundle } from './types.js';
import type { BundleVerification, VerifyOptions } from './verify.js';
import { loadOnce } from '../../util/load-once.js';

const operations = loadOnce(() => import('./operations.js'));

/**
 * Verify an evidence bundle: the object, or its serialized JSON text or bytes as served (then the bytes must be the
 * bundle's canonical form). Never throws for a malformed bundle: a check fails. The verifier's code loads on the
 * first call.
 * @throws NOT_SUPPORTED when the runtime's WebCrypto has no Ed25519
 * @example
 * const { valid, checks } = await verifyEvidenceBundle(await readFile('bundle.json'), { publicKey })
 */
export async function verifyEvidenceBundle(
  bundle: EvidenceBundle | string | Uint8Array,
  options: VerifyOptions = {},
): Promise<BundleVerification> {
  return (await operations()).verifyEvidenceBundle(bundle, options);
}
