/** `trainprint fingerprint FILE`: the fingerprint summary of a UTF-8 file as JSON. */
import { createEngine } from '../library.js';
import { readInputFile, summary, UsageError } from './shared.js';

/**
 * `trainprint fingerprint FILE`: fingerprints the file's bytes and prints their summary as JSON.
 * @example process.exitCode = await fingerprintCommand(['README.md'])
 */
export async function fingerprintCommand(args: string[]): Promise<number> {
  if (args.length !== 1) throw new UsageError('fingerprint needs exactly one FILE');
  const text = await readInputFile(args[0]);
  const engine = await createEngine();
  console.log(JSON.stringify(summary(await engine.fingerprint(new Uint8Array(text))), null, 2));
  return 0;
}
