/**
 * `trainprint verify BUNDLE.json [--key PUB] [--text FILE] [--json]`: checks an evidence bundle offline and prints
 * every check; exit code 0 when it is valid, 1 when it is not.
 */
import { existsSync } from 'node:fs';
import { verifyEvidenceBundle, type VerifyOptions } from '../library.js';
import { HELP } from './help.js';
import { parse, readInputFile, UsageError } from './shared.js';

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
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('verify needs exactly one BUNDLE.json');
  const bytes = new Uint8Array(await readInputFile(positionals[0]));
  const key = values.key as string | undefined;
  const options: VerifyOptions = {
    ...(key === undefined ? {} : { publicKey: await publicKeyFrom(key) }),
    ...(values.text === undefined ? {} : { text: await readInputFile(values.text as string, 'utf8') }),
  };
  const v = await verifyEvidenceBundle(bytes, options);
  if (values.json) console.log(JSON.stringify(v, null, 2));
  else {
    const width = Math.max(...v.checks.map((c) => c.name.length));
    for (const c of v.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(width)}  ${c.detail}`);
    for (const s of v.skipped) console.log(`--    not re-derived: ${s}`);
    if (key === undefined)
      console.log(
        "note  signed by the key the bundle names: compare it with the engine's (--key, GET /api/v1/report-key)",
      );
    console.log(v.valid ? 'valid' : 'INVALID');
  }
  return v.valid ? 0 : 1;
}

/** `--key`: a file (a report-key answer, a JWK, or the base64url key) or the base64url key itself. */
async function publicKeyFrom(key: string): Promise<NonNullable<VerifyOptions['publicKey']>> {
  if (!existsSync(key)) return key;
  const text = (await readInputFile(key, 'utf8')).trim();
  if (!text.startsWith('{')) return text;
  try {
    return JSON.parse(text) as NonNullable<VerifyOptions['publicKey']>;
  } catch {
    throw new UsageError(`--key ${key}: not JSON`);
  }
}
