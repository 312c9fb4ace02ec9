/**
 * The transcripts of a remote corpus's search: the digests of every call it used (request and answer, each the
 * SHA-256 of its JSON), and the digest over them that the result carries (`remote_corpora[i].transcript.sha256`):
 * the SHA-256 hex of the lines `request answer\n`, sorted — so the order in which concurrent calls ended does not
 * change it.
 */
import { sha256Portable, toHex } from '../../fingerprint/sha256.js';
import type { BundleTranscript, TranscriptCall } from './types.js';

const utf8 = new TextEncoder();

/**
 * The calls sorted as they are hashed, and their digest (synchronous: transcripts are short lines of hex).
 * @example
 * transcriptDigest([{ request: 'a'.repeat(64), answer: 'b'.repeat(64) }]).calls // 1
 */
export function transcriptDigest(calls: readonly TranscriptCall[]): BundleTranscript {
  const entries = calls.map((c) => ({ request: c.request, answer: c.answer }));
  const lines = entries.map((c) => `${c.request} ${c.answer}\n`);
  const order = lines.map((_, i) => i).sort((a, b) => (lines[a] < lines[b] ? -1 : lines[a] > lines[b] ? 1 : 0));
  return {
    calls: entries.length,
    sha256: toHex(sha256Portable(utf8.encode(order.map((i) => lines[i]).join('')))),
    entries: order.map((i) => entries[i]),
  };
}
