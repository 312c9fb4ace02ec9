/**
 * The memorization operations, loaded on the first call of a {@link Memorization} method (./memorization.ts):
 * tracking works and reference sets, extraction (a prefix's, a whole work's, a catalogue's audit), probes, compare,
 * assessments. A file of its own in the package (dist/memorization-work.js, built on the library), so a program that
 * never runs them carries none of their code.
 *
 * @example
 * const { runProbe } = await import('./operations.js')
 */
export { getAssessment, runAssessment } from './assess.js';
export { auditCatalogue, checkAuditSliced } from './audit.js';
export { compareOutput } from './compare-output.js';
export { runExtraction } from './extract.js';
export { readExtraction, runWorkExtraction } from './extract-work.js';
export { runProbe } from './probe.js';
// a catalogue's request read with turns of the event loop, here so that the main entry carries none of it
export { readThroughSliced } from './read-through-sliced.js';
export {
  addReferenceSet,
  deleteReferenceSet,
  getReferenceSet,
  getTracked,
  listReferenceSets,
  trackWork,
} from './register.js';
