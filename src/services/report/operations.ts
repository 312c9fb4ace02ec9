/**
 * The verification of an evidence bundle (./verify.ts: the signature, the digests, the analysis derived again from
 * the bundled text), loaded on the first {@link verifyEvidenceBundle} call (./verify-on-demand.ts). A file of its own
 * in the package (dist/report-work.js, built on the library), so a program that never verifies carries none of it.
 *
 * @example
 * const { verifyEvidenceBundle } = await import('./operations.js')
 */
export { verifyEvidenceBundle } from './verify.js';
