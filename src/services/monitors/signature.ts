/**
 * Webhook signatures in the Stripe style: `Trainprint-Signature: t=<unix seconds>,v1=<hex>` where the
 * hex is HMAC-SHA256(secret, `${t}.${body}`). Signing the timestamp with the body lets a receiver
 * refuse replays of an old, validly signed request; several `v1=` values let a sender sign with an
 * old and a new secret while a rotation is under way.
 *
 * Only WebCrypto (`globalThis.crypto.subtle`) is used, so this runs unchanged in Node ≥ 20, Deno and
 * browsers. (A page served over plain http from a LAN address has no `crypto.subtle`; webhooks are a
 * server-side feature, so there is no pure-TS fallback here.)
 */
import { TrainprintError } from '../../errors.js';

/** Name of the HTTP header that carries the signature. */
export const SIGNATURE_HEADER = 'Trainprint-Signature';

/** Default replay window of {@link verifySignature}, in seconds (Stripe's default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Options of {@link verifySignature}. */
export interface VerifyOptions {
  /**
   * Largest accepted |now − t| in seconds. Checked in both directions, so a sender whose clock runs
   * ahead is treated like one whose clock runs behind.
   * @default 300
   */
  readonly toleranceSeconds?: number;
  /** The current time in unix **seconds** (tests, or a trusted clock). @default Date.now() / 1000 */
  readonly now?: number;
}

// A header longer than this is not ours: a handful of signatures is ~75 characters each.
const MAX_HEADER_LENGTH = 4096;
const HEX64 = /^[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,15}$/;
const encoder = new TextEncoder();

/**
 * The `Trainprint-Signature` header value for `body` sent at `timestamp`.
 *
 * @param secret The subscription's shared secret (non-empty).
 * @param body The exact request body, as sent on the wire.
 * @param timestamp Unix time in whole seconds.
 * @returns `t=<timestamp>,v1=<64 lowercase hex digits>`
 * @throws INVALID_INPUT (rejects) when the secret is not a non-empty string, the body is not a string
 *   or the timestamp is not a non-negative integer.
 * @example
 * const body = JSON.stringify(event)
 * const header = await signPayload(secret, body, Math.floor(Date.now() / 1000))
 * await fetch(url, { method: 'POST', body, headers: { [SIGNATURE_HEADER]: header } })
 */
export async function signPayload(secret: string, body: string, timestamp: number): Promise<string> {
  checkSecretAndBody(secret, body);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TrainprintError('INVALID_INPUT', 'timestamp must be a non-negative integer (unix seconds)');
  }
  return `t=${timestamp},v1=${await hmacHex(secret, `${timestamp}.${body}`)}`;
}

/**
 * Check a `Trainprint-Signature` header against the raw request body. True when the timestamp is
 * within the tolerance window and any `v1=` value matches (compared in constant time). A missing,
 * malformed or oversized header gives false; it never throws. Unknown schemes (`v0=`, `v2=`) are
 * ignored so a receiver keeps working when a future scheme is added alongside `v1`.
 *
 * Verify the body **before** parsing it, and verify the bytes you received: re-serialising parsed
 * JSON changes whitespace and key order, and the signature no longer matches.
 *
 * @param secret The subscription's shared secret (non-empty).
 * @param body The raw request body, decoded as UTF-8.
 * @param header The header value (anything that is not a string counts as malformed).
 * @throws INVALID_INPUT (rejects) when the secret is not a non-empty string or the body is not a string;
 *   INVALID_OPTIONS when `toleranceSeconds` or `now` is not a usable number.
 * @example
 * // A Node receiver (node:http, no framework). Reply 2xx quickly; do the work afterwards.
 * import { createServer } from 'node:http'
 * import { SIGNATURE_HEADER, verifySignature } from 'trainprint'
 *
 * const secret = process.env.TRAINPRINT_WEBHOOK_SECRET
 * createServer(async (req, res) => {
 *   const chunks = []
 *   for await (const chunk of req) chunks.push(chunk)
 *   const body = Buffer.concat(chunks).toString('utf8')          // the raw body, not re-serialised JSON
 *   const header = req.headers[SIGNATURE_HEADER.toLowerCase()]    // node lower-cases header names
 *   if (!(await verifySignature(secret, body, header))) {
 *     res.writeHead(400).end('bad signature')
 *     return
 *   }
 *   const event = JSON.parse(body)           // { id, type, created_at, data }
 *   // Deliveries are at-least-once: use event.id (or the Trainprint-Delivery header) to drop duplicates.
 *   res.writeHead(204).end()
 *   handle(event)
 * }).listen(8080)
 */
export async function verifySignature(
  secret: string,
  body: string,
  header: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  checkSecretAndBody(secret, body);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || Number.isNaN(tolerance) || tolerance < 0) {
    throw new TrainprintError('INVALID_OPTIONS', 'toleranceSeconds must be a non-negative number');
  }
  const now = options.now ?? Date.now() / 1000;
  if (typeof now !== 'number' || !Number.isFinite(now)) {
    throw new TrainprintError('INVALID_OPTIONS', 'now must be a finite number of unix seconds');
  }

  const parsed = parseHeader(header);
  if (!parsed) return false;
  if (Math.abs(now - parsed.timestamp) > tolerance) return false;

  const expected = await hmacHex(secret, `${parsed.timestamp}.${body}`);
  // Check every candidate, not just up to the first match, so timing says nothing about which matched.
  let ok = false;
  for (const candidate of parsed.signatures) ok = constantTimeEqual(expected, candidate) || ok;
  return ok;
}

/** `t=…,v1=…[,v1=…]` → parts, or undefined for anything malformed (strict: one `t`, ≥ 1 valid `v1`). */
function parseHeader(header: unknown): { timestamp: number; signatures: string[] } | undefined {
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_HEADER_LENGTH) return undefined;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.trim();
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 't') {
      if (timestamp !== undefined || !TIMESTAMP.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!HEX64.test(value)) return undefined;
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/** Both inputs are 64 lowercase hex digits here; the length check only guards misuse. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) throw new TrainprintError('INVALID_INPUT', 'WebCrypto (crypto.subtle) is not available in this runtime');
  const key = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(message)));
  let hex = '';
  for (const byte of mac) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function checkSecretAndBody(secret: unknown, body: unknown): void {
  // An empty secret would make every signature forgeable; WebCrypto in Node also refuses zero-length keys.
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TrainprintError('INVALID_INPUT', 'secret must be a non-empty string');
  }
  if (typeof body !== 'string') throw new TrainprintError('INVALID_INPUT', 'body must be a string');
}
