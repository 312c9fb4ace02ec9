/**
 * The digests an extraction and a catalogue audit carry, apart from the operations (./operations.ts, loaded on
 * demand): an evidence bundle's verifier computes them again (src/services/report/verify.ts, audit-check.ts). Their
 * inputs are the fields of an `ExtractionCall` (./extract-work.ts) and of an `AuditedWork` (./audit.ts) they read.
 */
import { sha256HexNow } from '../../fingerprint/sha256.js';

const encoder = new TextEncoder();

/**
 * The digest of an extraction's record: the SHA-256 (hex) of the lines `id request_sha256 answer_sha256\n` of its
 * calls in order (`-` for a failed call's answer; a record made before calls carried `answer_sha256`: its
 * `response_sha256`). Anyone holding the record recomputes it (`trainprint verify` does).
 * @example extractionTranscriptSha256(result.record.calls) === result.record.transcript_sha256 // true
 */
export function extractionTranscriptSha256(
  calls: ReadonlyArray<{
    readonly id: number;
    readonly request_sha256: string;
    readonly response_sha256: string | null;
    readonly answer_sha256?: string | null;
  }>,
): string {
  const answer = (c: (typeof calls)[number]) => (c.answer_sha256 !== undefined ? c.answer_sha256 : c.response_sha256);
  return sha256HexNow(encoder.encode(calls.map((c) => `${c.id} ${c.request_sha256} ${answer(c) ?? '-'}\n`).join('')));
}

/**
 * The digest an audit carries: the SHA-256 (hex) of the lines `id transcript_sha256` of its works in order (`-` for a
 * work without a run). An evidence bundle's verifier computes it again from the works the audit lists.
 * @example auditDigest(result.works) === result.audit_sha256
 */
export function auditDigest(
  works: ReadonlyArray<{ readonly id: string; readonly transcript_sha256?: string }>,
): string {
  return sha256HexNow(encoder.encode(works.map((w) => `${w.id} ${w.transcript_sha256 ?? '-'}\n`).join('')));
}
