/**
 * The shapes of the work report and the evidence bundle: what they are made from (a stored analysis, its text and
 * its remote corpora's transcripts), the signed bundle itself, and what verifying one answers.
 */
import type { AnalysisExtraction, AnalysisResult } from '../analyze/types.js';
import type { RemoteEngineKind, RemoteOutcome } from '../../corpus/remote-types.js';
import type { WorkExtractionResult } from '../memorization/extract-work.js';
import type { CatalogueAuditResult } from '../memorization/audit.js';

/** One call of a remote corpus's search: the SHA-256 (hex) of the request's JSON and of the answer's JSON. */
export interface TranscriptCall {
  readonly request: string;
  readonly answer: string;
}

/**
 * What an analysis is rendered and bundled from — a stored analysis as `engine.getAnalysisRecord` reads it: the
 * result, the analysed text (a file's extracted text, or the content) and, per remote corpus, its calls.
 */
export interface AnalysisRecordInput {
  readonly result: AnalysisResult;
  /** The text every span of the result points into; null when it is not at hand (the report then says so). */
  readonly text: string | null;
  /** The SHA-256 (hex) of `text` where the caller has it already (the bundle then does not hash the text again). */
  readonly text_sha256?: string;
  /** Per remote corpus (`dataset_id`): every call its search used, as digests. @default none */
  readonly transcripts?: Readonly<Record<string, readonly TranscriptCall[]>>;
  /**
   * What models wrote out of this work (`memorization.extractWork` results over the same text: their `text_sha256`
   * is the analysed text's). Bundled and signed whole, record of calls included; the report draws each as a strip.
   * @default none
   */
  readonly model_extractions?: readonly WorkExtractionResult[];
  /**
   * Catalogue audits (`memorization.auditCatalogue` results) that measured this work among others: bundled and signed
   * whole (per-work verdicts, transcript digests, `audit_sha256`); the verifier computes the digest and the catalogue's
   * figures again from the works listed. @default none
   */
  readonly catalogue_audits?: readonly CatalogueAuditResult[];
}

/** One remote corpus's calls in a bundle, with their digest recomputed when the bundle was made. */
export interface BundleTranscript {
  /** Calls in the digest (`remote_corpora[i].transcript.calls`). */
  readonly calls: number;
  /** SHA-256 hex of the lines `request answer\n`, sorted (`remote_corpora[i].transcript.sha256`). */
  readonly sha256: string;
  /** The calls, sorted as hashed. */
  readonly entries: readonly TranscriptCall[];
}

/** The engine that made an analysis and signed its bundle. */
export interface BundleEngine {
  readonly name: 'trainprint';
  /** The package version. */
  readonly version: string;
  /** The WebAssembly core that ran: its variant and the SHA-256 of its bytes (first 16 hex digits). */
  readonly core: { readonly variant: 'scalar' | 'simd'; readonly sha256: string };
}

/** A remote index an analysis sent text to (from `remote_corpora`). */
export interface BundleRemoteIndex {
  readonly dataset_id: string;
  readonly engine: RemoteEngineKind;
  readonly endpoint: string;
  readonly index: string;
  readonly outcome: RemoteOutcome;
}

/** The signature of a bundle: Ed25519 over the UTF-8 of the canonical JSON of every other member. */
export interface BundleSignature {
  readonly alg: 'Ed25519';
  /** How the signed bytes are made from the bundle. */
  readonly canonicalization: 'RFC8785';
  /** First 16 hex digits of the SHA-256 of the raw public key. */
  readonly key_id: string;
  /** The raw 32-byte public key, base64url (the `x` of its JWK, RFC 8037). */
  readonly public_key: string;
  /** The 64-byte signature, base64url. */
  readonly value: string;
}

/** The format name of {@link EvidenceBundle}. */
export const EVIDENCE_BUNDLE_FORMAT = 'trainprint-evidence-bundle/1';

/**
 * A signed evidence bundle of one analysis: the result as stored, digests of its inputs, the remote corpora's call
 * transcripts, the engine that made it, and an Ed25519 signature over all of that. The analysed text itself is not in
 * it (it may be the holder's unpublished work): `text_sha256` binds it.
 */
export interface EvidenceBundle {
  readonly format: typeof EVIDENCE_BUNDLE_FORMAT;
  /** When the bundle was made (the analysis's own time is `result.created_at`). */
  readonly created_at: string;
  readonly result: AnalysisResult;
  /**
   * SHA-256 hex of the UTF-8 of the analysed text (a file's extracted text, or the content as sent); null when the
   * text was not kept with the analysis.
   */
  readonly text_sha256: string | null;
  /** A file's extraction as the result describes it, without the text. */
  readonly extraction?: Omit<AnalysisExtraction, 'text'>;
  /** Per remote corpus searched: its calls and their digest. */
  readonly transcripts: Readonly<Record<string, BundleTranscript>>;
  /** Model extractions of the work, each with the record of its calls (`trainprint verify` hashes them again). */
  readonly model_extractions?: readonly WorkExtractionResult[];
  /** Catalogue audits with the work among theirs (`trainprint verify` computes each `audit_sha256` again). */
  readonly catalogue_audits?: readonly CatalogueAuditResult[];
  readonly engine: BundleEngine;
  readonly remote_indexes: readonly BundleRemoteIndex[];
  readonly signature: BundleSignature;
}

/** One check of {@link VerifyResult}. */
export interface VerifyCheck {
  readonly name: string;
  readonly ok: boolean;
  /** What was compared, and with what outcome. */
  readonly detail: string;
}

/** What `verifyEvidenceBundle` found: valid when every check is ok. */
export interface VerifyResult {
  readonly valid: boolean;
  readonly checks: readonly VerifyCheck[];
}
