/**
 * The evidence bundle of an analysis: one JSON document holding the result as stored, the digests of its inputs (the
 * analysed text, every remote call), the engine that made it and an Ed25519 signature by the engine's report key over
 * the canonical JSON (RFC 8785, ./canonical.ts) of all of it but the signature. Anyone can check it offline with the
 * public key (`verifyEvidenceBundle`, ./verify.ts).
 */
import { CORE_BUILDS } from '../../core/load.js';
import { sha256Hex } from '../../fingerprint/sha256.js';
import { canonicalJson } from './canonical.js';
import type { ReportKey } from './sign.js';
import { transcriptDigest } from './transcripts.js';
import {
  EVIDENCE_BUNDLE_FORMAT,
  type AnalysisRecordInput,
  type BundleTranscript,
  type EvidenceBundle,
  type TranscriptCall,
} from './types.js';
import { TRAINPRINT_VERSION } from './version.js';

/** What {@link buildEvidenceBundle} signs with and records. */
export interface BundleOptions {
  /** The engine's report key (`loadReportKey(engine.store)`). */
  readonly key: ReportKey;
  /** The core variant that ran (`engine.variant`). */
  readonly variant: 'scalar' | 'simd';
  /** The bundle's `created_at`. @default now */
  readonly now?: () => Date;
}

/**
 * The signed evidence bundle of a stored analysis (`engine.getAnalysisRecord(id)`). The bundle binds the analysed
 * text by its SHA-256; without the text (an analysis stored before texts were kept with it) `text_sha256` is null.
 * @example
 * const record = await engine.getAnalysisRecord(id)
 * const bundle = await buildEvidenceBundle(record, { key: await loadReportKey(engine.store), variant: engine.variant })
 */
export async function buildEvidenceBundle(
  record: AnalysisRecordInput,
  options: BundleOptions,
): Promise<EvidenceBundle> {
  const { result, text } = record;
  const unsigned = {
    format: EVIDENCE_BUNDLE_FORMAT,
    created_at: (options.now?.() ?? new Date()).toISOString(),
    result,
    text_sha256: typeof text === 'string' ? (record.text_sha256 ?? (await sha256Hex(text))) : null,
    ...(result.extraction ? { extraction: withoutText(result.extraction) } : {}),
    transcripts: bundleTranscripts(result, record.transcripts ?? {}),
    ...(record.model_extractions?.length ? { model_extractions: record.model_extractions } : {}),
    ...(record.catalogue_audits?.length ? { catalogue_audits: record.catalogue_audits } : {}),
    engine: {
      name: 'trainprint',
      version: TRAINPRINT_VERSION,
      core: { variant: options.variant, sha256: CORE_BUILDS[options.variant].sha256 },
    },
    remote_indexes: result.remote_corpora.map((r) => ({
      dataset_id: r.dataset_id,
      engine: r.engine,
      endpoint: r.endpoint,
      index: r.index,
      outcome: r.outcome,
    })),
  } as const;
  const { key } = options;
  const value = await key.sign(new TextEncoder().encode(canonicalJson(unsigned)));
  return {
    ...unsigned,
    signature: {
      alg: 'Ed25519',
      canonicalization: 'RFC8785',
      key_id: key.publicKey.key_id,
      public_key: key.publicKey.public_key,
      value,
    },
  };
}

/** Every remote corpus of the result with its calls (none kept: an empty list) and their digest recomputed. */
function bundleTranscripts(
  result: AnalysisRecordInput['result'],
  transcripts: Readonly<Record<string, readonly TranscriptCall[]>>,
): Record<string, BundleTranscript> {
  const out: Record<string, BundleTranscript> = {};
  for (const r of result.remote_corpora) {
    const calls = Object.hasOwn(transcripts, r.dataset_id) ? transcripts[r.dataset_id] : [];
    out[r.dataset_id] = transcriptDigest(calls);
  }
  return out;
}

function withoutText<T extends { readonly text?: string }>(x: T): Omit<T, 'text'> {
  const { text: _text, ...rest } = x;
  return rest;
}
