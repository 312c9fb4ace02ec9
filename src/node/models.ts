/**
 * A byte-level test model read from its directory (models/README.md): `manifest.json` and the weights file it
 * names, checked against the manifest's SHA-256 before anything runs them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readByteGptWeights, TrainprintError, type ByteGptWeights } from '../library.js';

/** The fields of a model manifest the package reads (the file holds the documents by role too). */
export interface ModelManifest {
  readonly name: string;
  readonly weights: string;
  readonly sha256: string;
  readonly config: unknown;
  readonly [field: string]: unknown;
}

/**
 * The manifest and the weights of the model in `dir`.
 * @throws INVALID_INPUT when the weights' SHA-256 is not the manifest's (or they do not fit its config)
 * @example
 * const { weights } = await readModelDirectory('models/byte-gpt-base')
 * const model = await loadByteGptModel(weights, { id: 'byte-gpt-base' })
 */
export async function readModelDirectory(dir: string): Promise<{ manifest: ModelManifest; weights: ByteGptWeights }> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ModelManifest;
  const bytes = new Uint8Array(await readFile(join(dir, manifest.weights)));
  const { createHash } = await import('node:crypto'); // here: a process that reads no model loads no crypto
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== manifest.sha256)
    throw new TrainprintError(
      'INVALID_INPUT',
      `${join(dir, manifest.weights)}: SHA-256 ${sha}, the manifest says ${manifest.sha256}`,
    );
  return { manifest, weights: readByteGptWeights(bytes, manifest.config) };
}
