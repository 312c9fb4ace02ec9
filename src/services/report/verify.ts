/**
 * Verification of an evidence bundle, offline, with nothing but the bundle (and, optionally, the public key one
 * trusts and the analysed text).
 *
 * What a valid bundle proves:
 * - **integrity and signer**: the holder of the private key whose public key the bundle names signed exactly these
 *   bytes (Ed25519 over the canonical JSON, RFC 8785); with `publicKey`, that this key is the one the caller trusts
 *   (an engine's `GET /api/v1/report-key`). Any changed byte fails: the signature, or — for a bundle given as its
 *   serialized text — the check that the text is the bundle's canonical form;
 * - **internal consistency**: every remote corpus's transcript digest, recomputed from the calls listed, is the one
 *   the result carries, with as many calls; the counts, confidences, sections' coverage and sampled shares that can be
 *   computed from the bundle are what the result says (./rederive.ts); the text's SHA-256 is the work hash where the
 *   work was plain text;
 * - every model extraction's record: its calls hashed again give the transcript digest it carries, as many calls as
 *   it counts, numbered in order; it measured the analysed text (its `text_sha256`); with `text`, every block's span
 *   has ≥ 90 % of its words in order in the generated text;
 * - with `text`: that this is the text the analysis read.
 *
 * What it cannot prove: that the corpora hold what the matches say (it cannot query the remote engines again, and a
 * transcript holds digests, not answers; the local datasets are not in the bundle), that the search's own counts
 * (n-grams tested and found, chains of hits) are right, or who runs the key: a key pair anyone can make signs as
 * validly, so compare the key with the engine's published one.
 */
import { sha256Hex } from '../../fingerprint/sha256.js';
import { extractionTranscriptSha256 } from '../memorization/digests.js';
import { inOrderShare } from '../memorization/nv-blocks.js';
import { catalogueAuditProblem } from './audit-check.js';
import { canonicalJson } from './canonical.js';
import { rederive } from './rederive.js';
import { base64url, fromBase64url } from '../registry/receipts.js';
import { acceptablePublicKey } from './ed25519-point.js';
import { publicKeyOf, verifyEd25519 } from './sign.js';
import { transcriptDigest } from './transcripts.js';
import {
  type BundleSignature,
  EVIDENCE_BUNDLE_FORMAT,
  type EvidenceBundle,
  type VerifyCheck,
  type VerifyResult,
} from './types.js';

/** Options of {@link verifyEvidenceBundle}. */
export interface VerifyOptions {
  /**
   * The public key to trust: the raw key base64url, its JWK (`{ x }`) or the answer of `GET /api/v1/report-key`.
   * @default none: the key the bundle names (checked for integrity only)
   */
  readonly publicKey?: string | { readonly x?: string; readonly public_key?: string; readonly jwk?: { x?: string } };
  /** The analysed text: checked against the bundle's `text_sha256`, and the sections' word counts recomputed. */
  readonly text?: string;
}

/** {@link VerifyResult} with what could not be re-derived from a bundle, and why. */
export interface BundleVerification extends VerifyResult {
  readonly skipped: readonly string[];
  /**
   * Whether the signer was checked against a key the caller trusts (`publicKey` given). Without it a valid bundle
   * proves integrity only: anyone can sign a bundle with a key pair of their own, and it names that key.
   */
  readonly pinned: boolean;
}

/**
 * Verify an evidence bundle: the object, or its serialized JSON text or bytes as served (then the bytes must be the
 * bundle's canonical form). Never throws for a malformed bundle: a check fails.
 * @throws NOT_SUPPORTED when the runtime's WebCrypto has no Ed25519
 * @example
 * const { valid, checks } = await verifyEvidenceBundle(await readFile('bundle.json'), { publicKey })
 */
export async function verifyEvidenceBundle(
  bundle: EvidenceBundle | string | Uint8Array,
  options: VerifyOptions = {},
): Promise<BundleVerification> {
  const checks: VerifyCheck[] = [];
  const pinned = options.publicKey !== undefined;
  const parsed = readBundle(bundle, checks);
  if (parsed === null) return { valid: false, checks, skipped: [], pinned };
  await signature(parsed, options, checks);
  const skipped: string[] = [];
  const run = async (name: string, fn: () => Promise<string | null> | string | null) => {
    try {
      const problem = await fn();
      checks.push({ name, ok: problem === null, detail: problem ?? 'equal' });
    } catch (e) {
      checks.push({ name, ok: false, detail: `could not be checked: ${e instanceof Error ? e.message : e}` });
    }
  };
  const { result } = parsed;
  if (options.text !== undefined) {
    const text = options.text;
    await run('text', async () => sameValue('SHA-256 of the text given', await sha256Hex(text), parsed.text_sha256));
  }
  // plain text is analysed as sent: its work hash is the SHA-256 of the text (markup's is of the markup)
  if (result.content_type === 'text' && parsed.text_sha256 !== null)
    await run('work_hash', () => sameValue('text_sha256', `sha256:${parsed.text_sha256}`, result.work_hash));
  await run('extraction', () => extraction(parsed));
  await run('remote_indexes', () => remoteIndexes(parsed));
  for (const r of result.remote_corpora) await run(`transcript:${r.dataset_id}`, () => transcript(parsed, r));
  await run('transcripts', () => strayTranscripts(parsed));
  const extractions: unknown = parsed.model_extractions;
  if (extractions !== undefined && !Array.isArray(extractions))
    checks.push({ name: 'model_extractions', ok: false, detail: 'model_extractions is not a list' });
  else
    for (const [i, x] of (extractions ?? []).entries())
      await run(`model_extraction:${i}`, () => modelExtraction(x, parsed.text_sha256, options.text));
  const audits: unknown = parsed.catalogue_audits;
  if (audits !== undefined && !Array.isArray(audits))
    checks.push({ name: 'catalogue_audits', ok: false, detail: 'catalogue_audits is not a list' });
  else for (const [i, a] of (audits ?? []).entries()) await run(`catalogue_audit:${i}`, () => catalogueAuditProblem(a));
  try {
    const again = rederive(result, options.text ?? null);
    checks.push(...again.checks);
    skipped.push(...again.skipped);
  } catch (e) {
    checks.push({
      name: 'numbers',
      ok: false,
      detail: `could not be recomputed: ${e instanceof Error ? e.message : e}`,
    });
  }
  return { valid: checks.every((c) => c.ok), checks, skipped, pinned };
}

/** The bundle as an object; for text or bytes, also the check that they are its canonical JSON. Null: unreadable. */
function readBundle(input: EvidenceBundle | string | Uint8Array, checks: VerifyCheck[]): EvidenceBundle | null {
  let value: unknown = input;
  if (typeof input === 'string' || input instanceof Uint8Array) {
    let text: string;
    try {
      // the BOM is kept in the text (TextDecoder drops it by default): a file that gained one is not as served
      text =
        typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
      if (text.charCodeAt(0) === 0xfeff) {
        checks.push({
          name: 'format',
          ok: false,
          detail: 'starts with a byte order mark: a bundle as served is its canonical JSON, which has none',
        });
        return null;
      }
      value = JSON.parse(text);
    } catch (e) {
      checks.push({ name: 'format', ok: false, detail: `not UTF-8 JSON: ${e instanceof Error ? e.message : e}` });
      return null;
    }
    // a byte changed into one that parses alike (an exponent's `e` into `E`, a space added) is still a change
    const canonical = canonicalOrNull(value);
    checks.push({
      name: 'canonical_form',
      ok: canonical === text,
      detail:
        canonical === text
          ? 'the bytes are the canonical JSON of the bundle (RFC 8785), as served'
          : 'the bytes are not the canonical JSON of the bundle (RFC 8785): changed or reformatted after it was served',
    });
  }
  const b = value as Partial<EvidenceBundle> | null;
  const ok =
    !!b &&
    typeof b === 'object' &&
    b.format === EVIDENCE_BUNDLE_FORMAT &&
    !!b.result &&
    typeof b.result === 'object' &&
    !!b.signature &&
    typeof b.signature === 'object';
  checks.push({
    name: 'format',
    ok,
    detail: ok ? EVIDENCE_BUNDLE_FORMAT : `not a ${EVIDENCE_BUNDLE_FORMAT} document (format, result, signature)`,
  });
  return ok ? (b as EvidenceBundle) : null;
}

function canonicalOrNull(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

/** The members a bundle's `signature` has, every one a string: no other member, none missing. */
const SIGNATURE_MEMBERS = ['alg', 'canonicalization', 'key_id', 'public_key', 'value'] as const;

/**
 * What is wrong with the `signature` member itself, which the signature cannot cover: its members exactly those of
 * {@link BundleSignature}, each the one value it may have — `alg` Ed25519, `canonicalization` RFC8785, `key_id` the
 * key's, the key and the value as the signer wrote them (canonical base64url of 32 and 64 bytes), the key a point of
 * the curve of large order. Null when nothing is.
 */
function signatureMemberProblem(sig: unknown): string | null {
  if (sig === null || typeof sig !== 'object' || Array.isArray(sig)) return 'signature is not an object';
  const s = sig as Record<string, unknown>;
  const extra = Object.keys(s).filter((k) => !(SIGNATURE_MEMBERS as readonly string[]).includes(k));
  if (extra.length) return `signature has members no bundle has: ${extra.map((k) => JSON.stringify(k)).join(', ')}`;
  const missing = SIGNATURE_MEMBERS.filter((k) => typeof s[k] !== 'string');
  if (missing.length) return `signature.${missing.join(', signature.')} missing or not a string`;
  if (s.alg !== 'Ed25519') return `signature.alg is ${JSON.stringify(s.alg)}, not "Ed25519"`;
  if (s.canonicalization !== 'RFC8785')
    return `signature.canonicalization is ${JSON.stringify(s.canonicalization)}, not "RFC8785"`;
  const raw = fromBase64url(s.public_key as string);
  if (raw === null || raw.length !== 32 || base64url(raw) !== s.public_key)
    return 'signature.public_key is not 32 bytes in canonical base64url';
  if (!acceptablePublicKey(raw))
    return 'signature.public_key is not an Ed25519 key to trust: off the curve, or of small order (a signature by it verifies for any content)';
  const keyId = publicKeyOf(s.public_key as string).key_id;
  if (s.key_id !== keyId) return `signature.key_id is ${JSON.stringify(s.key_id)}, the key's is ${keyId}`;
  const value = fromBase64url(s.value as string);
  if (value === null || value.length !== 64 || base64url(value) !== s.value)
    return 'signature.value is not 64 bytes in canonical base64url';
  return null;
}

/** The Ed25519 signature over the canonical JSON of everything but `signature`, and the key it was made with. */
async function signature(b: EvidenceBundle, options: VerifyOptions, checks: VerifyCheck[]): Promise<void> {
  const { signature: sig, ...signed } = b;
  let ok = false;
  let detail: string;
  const problem = signatureMemberProblem(sig);
  if (problem !== null) detail = problem;
  else {
    try {
      const bytes = new TextEncoder().encode(canonicalJson(signed));
      ok = await verifyEd25519(sig.public_key, sig.value, bytes);
      detail = ok
        ? `Ed25519 signature by key ${sig.key_id} over ${bytes.length} canonical bytes`
        : `the Ed25519 signature does not verify with key ${sig.key_id}`;
    } catch (e) {
      detail = `the signature could not be checked: ${e instanceof Error ? e.message : e}`;
    }
  }
  checks.push({ name: 'signature', ok, detail });
  if (options.publicKey === undefined) return;
  const x = String((sig as Partial<BundleSignature> | null)?.public_key);
  const trusted = trustedKey(options.publicKey);
  checks.push({
    name: 'signer',
    ok: trusted === x,
    detail:
      trusted === x
        ? 'signed with the key given'
        : `signed with key ${x}, not the key given (${trusted ?? 'unreadable'})`,
  });
}

function trustedKey(k: NonNullable<VerifyOptions['publicKey']>): string | null {
  if (typeof k === 'string') return k.trim();
  return k.public_key ?? k.x ?? k.jwk?.x ?? null;
}

function sameValue(what: string, expected: string, actual: unknown): string | null {
  return expected === actual ? null : `${what} is ${expected}, the bundle says ${String(actual)}`;
}

function extraction(b: EvidenceBundle): string | null {
  const x = b.result.extraction;
  if (!x) return b.extraction === undefined ? null : 'an extraction without a file';
  const { text: _text, ...described } = x;
  return canonicalJson(described) === canonicalJson(b.extraction ?? null)
    ? null
    : "the bundle's extraction is not the result's";
}

function remoteIndexes(b: EvidenceBundle): string | null {
  const expected = b.result.remote_corpora.map((r) => ({
    dataset_id: r.dataset_id,
    engine: r.engine,
    endpoint: r.endpoint,
    index: r.index,
    outcome: r.outcome,
  }));
  return canonicalJson(expected) === canonicalJson(b.remote_indexes)
    ? null
    : "remote_indexes are not the result's remote corpora";
}

/** A corpus's calls hashed again: the digest the bundle lists and the result carries, with as many calls. */
function transcript(b: EvidenceBundle, r: EvidenceBundle['result']['remote_corpora'][number]): string | null {
  const t = Object.hasOwn(b.transcripts, r.dataset_id) ? b.transcripts[r.dataset_id] : undefined;
  if (!t) return 'no transcript in the bundle';
  // a result stored before transcripts were kept carries no digest: nothing ties its remote matches to calls
  if (!r.transcript) return 'the result carries no transcript digest (an analysis made before they were kept)';
  const again = transcriptDigest(t.entries);
  const problems: string[] = [];
  if (again.sha256 !== t.sha256) problems.push(`the calls hash to ${again.sha256}, the bundle lists ${t.sha256}`);
  if (again.sha256 !== r.transcript.sha256)
    problems.push(`the calls hash to ${again.sha256}, the result carries ${r.transcript.sha256}`);
  if (again.calls !== t.calls || again.calls !== r.transcript.calls)
    problems.push(`${again.calls} calls listed, the bundle says ${t.calls}, the result ${r.transcript.calls}`);
  return problems.length ? problems.join('; ') : null;
}

/**
 * A model extraction's record hashed again (the digest it carries, over as many calls as it counts, numbered 0, 1, …),
 * its text the analysed one, and with the text at hand every block's in-order check redone.
 */
function modelExtraction(x: unknown, textSha256: string | null, text: string | undefined): string | null {
  const e = x as NonNullable<EvidenceBundle['model_extractions']>[number];
  if (!e || typeof e !== 'object' || !e.record || !Array.isArray(e.record.calls) || !Array.isArray(e.blocks))
    return 'not an extraction result with its record of calls';
  const calls = e.record.calls;
  const problems: string[] = [];
  const again = extractionTranscriptSha256(calls);
  if (again !== e.record.transcript_sha256)
    problems.push(`the calls hash to ${again}, the extraction carries ${String(e.record.transcript_sha256)}`);
  if (calls.length !== e.calls) problems.push(`${calls.length} calls listed, the extraction counts ${String(e.calls)}`);
  if (calls.some((c, i) => c.id !== i)) problems.push('the calls are not numbered 0, 1, … in order');
  if (textSha256 !== null && e.text_sha256 !== textSha256)
    problems.push(`it measured a text of SHA-256 ${String(e.text_sha256)}, not the analysed text`);
  if (text !== undefined)
    for (const b of e.blocks) {
      const ok = b.start >= 0 && b.end <= text.length && b.start < b.end;
      if (!ok || inOrderShare(text.slice(b.start, b.end), b.generated) < 0.9)
        problems.push(`block ${b.start}–${b.end}: fewer than 90 % of its words in order in the generated text`);
    }
  return problems.length ? problems.join('; ') : null;
}

function strayTranscripts(b: EvidenceBundle): string | null {
  const corpora = new Set(b.result.remote_corpora.map((r) => r.dataset_id));
  const stray = Object.keys(b.transcripts).filter((id) => !corpora.has(id));
  return stray.length ? `transcripts of corpora the result did not search: ${stray.join(', ')}` : null;
}
