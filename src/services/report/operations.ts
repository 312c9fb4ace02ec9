/**
 * The report's operations loaded on their first call (./on-demand.ts): the verification of an evidence bundle
 * (./verify.ts: the signature, the digests, the analysis derived again from the bundled text) and the work report's
 * HTML page (./render-html.ts). A file of its own in the package (dist/report-work.js, built on the library), so a
 * program that never verifies a bundle or draws a page carries none of it.
 *
 * @example
 * const { verifyEvidenceBundle } = await import('./operations.js')
 */
export { verifyEvidenceBundle } from './verify.js';
export { renderWorkReport } from './render-html.js';
