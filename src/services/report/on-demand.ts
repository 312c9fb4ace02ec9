/**
 * The report's operations whose code loads on the first call (./operations.ts, a file of its own in the package):
 * {@link verifyEvidenceBundle} and {@link renderWorkReport}. A program that never verifies a bundle or draws a page
 * carries neither.
 */
import type { WorkReportInput } from './render-html.js';
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

/**
 * The work report of an analysis: one self-contained HTML page (./render-html.ts). Its code loads on the first call.
 * @example
 * const html = await renderWorkReport(reportRecord(await engine.getAnalysisRecord(id)))
 * await writeFile('report.html', html)
 */
export async function renderWorkReport(input: WorkReportInput): Promise<string> {
  return (await operations()).renderWorkReport(input);
}
