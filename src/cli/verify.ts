/**
 * `trainprint verify BUNDLE.json [--key PUB] [--text FILE] [--json] [--allow-unpinned]`: checks an evidence bundle
 * offline and prints every check; exit code 0 when it is valid under the key given, 1 when it is not valid, 3 when it
 * is valid under the key it names but no `--key` pinned it (0 with `--allow-unpinned`).
 */
import { existsSync } from 'node:fs';
import { verifyEvidenceBundle, type VerifyOptions } from '../library.js';
import { type AnalysedWork, analysedTextOf } from './files.js';
import { readInputFile } from './read-file.js';
import { parse, UsageError } from './shared.js';

/**
 * `trainprint verify`: the bundle's bytes as they are (a reformatted file fails its canonical-form check), the key
 * to trust (`--key`: a file holding the answer of `GET /api/v1/report-key`, a JWK or the key itself, or the key
 * given inline) and the analysed text (`--text`).
 * @example process.exitCode = await verifyCommand(['bundle.json', '--key', 'report-key.json'])
 */
export async function verifyCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    key: { type: 'string' },
    text: { type: 'string' },
    json: { type: 'boolean' },
    'allow-unpinned': { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('verify needs exactly one BUNDLE.json');
  const bytes = new Uint8Array(await readInputFile(positionals[0]));
  const key = values.key as string | undefined;
  const options: VerifyOptions = {
    ...(key === undefined ? {} : { publicKey: await publicKeyFrom(key) }),
    ...(values.text === undefined ? {} : { text: await textFrom(values.text as string, bytes) }),
  };
  const v = await verifyEvidenceBundle(bytes, options);
  const allowUnpinned = values['allow-unpinned'] === true;
  const code = !v.valid ? 1 : v.pinned || allowUnpinned ? 0 : UNPINNED_EXIT_CODE;
  if (values.json) console.log(JSON.stringify(v, null, 2));
  else {
    const width = Math.max(...v.checks.map((c) => c.name.length));
    for (const c of v.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(width)}  ${c.detail}`);
    for (const s of v.skipped) console.log(`--    not re-derived: ${s}`);
    if (!v.pinned)
      console.log(
        "note  signed by the key the bundle names, which anyone can make: pin the engine's key " +
          '(--key, GET /api/v1/report-key)' +
          (v.valid && !allowUnpinned ? `; exit code ${UNPINNED_EXIT_CODE} unless --allow-unpinned` : ''),
      );
    console.log(v.valid ? (v.pinned ? 'valid' : 'valid (key not pinned)') : 'INVALID');
  }
  return code;
}

/**
 * The exit code of a bundle that verifies under the key it names, with no `--key` to pin it and no
 * `--allow-unpinned`: not 0, since a bundle re-signed by anyone with a key of their own verifies as well.
 */
export const UNPINNED_EXIT_CODE = 3;

/**
 * `--text FILE` as `report --text` takes it: the work itself (a book's EPUB, PDF or DOCX file is extracted as analyze
 * extracted it, and the extracted text hashed), another book file (extracted), or the extracted text.
 */
async function textFrom(file: string, bundleBytes: Uint8Array): Promise<string> {
  return (await analysedTextOf(file, workOf(bundleBytes))).text;
}

/** The bundle's work hash and content type, when its bytes are JSON that has them (verify says what else is wrong). */
function workOf(bundleBytes: Uint8Array): AnalysedWork | null {
  try {
    const r = (JSON.parse(new TextDecoder().decode(bundleBytes)) as { result?: Partial<AnalysedWork> } | null)?.result;
    return typeof r?.work_hash === 'string' && typeof r.content_type === 'string'
      ? { work_hash: r.work_hash, content_type: r.content_type }
      : null;
  } catch {
    return null;
  }
}

/** An Ed25519 public key as the report key gives it: its 32 bytes in base64url, without padding. */
const BASE64URL_KEY = /^[A-Za-z0-9_-]{43}$/;

/**
 * `--key`: a file (a report-key answer, a JWK, or the base64url key) or the base64url key itself, as the key's
 * base64url. A value that is neither a file nor a key (a mistyped file name), or a file holding none, is a usage error,
 * not a key the bundle is then said to differ from.
 */
async function publicKeyFrom(key: string): Promise<string> {
  const text = existsSync(key) ? (await readInputFile(key, 'utf8')).trim() : null;
  const found = text === null ? key.trim() : text.startsWith('{') ? keyInJson(text, key) : text;
  if (BASE64URL_KEY.test(found)) return found;
  throw new UsageError(
    text === null
      ? `--key ${key}: no such file, nor an Ed25519 public key in base64url (43 characters)`
      : `--key ${key}: holds no key (a report-key answer, a JWK, or the base64url key)`,
  );
}

/** The key of a report-key answer (`public_key`), a JWK (`x`) or an object holding one (`jwk.x`); '' for none. */
function keyInJson(text: string, file: string): string {
  let parsed: { public_key?: unknown; x?: unknown; jwk?: { x?: unknown } } | null;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--key ${file}: not JSON`);
  }
  const x = parsed?.public_key ?? parsed?.x ?? parsed?.jwk?.x;
  return typeof x === 'string' ? x : '';
}
