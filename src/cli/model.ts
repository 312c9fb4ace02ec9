/**
 * `trainprint model serve`: a byte-level test model of models/ (models/README.md) behind the OpenAI completions
 * API, which the memorization operations call as any OpenAI-compatible model.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createByteGptHandler, loadByteGptModel, withCors } from '../library.js';
import { readModelDirectory, serve } from '../node/index.js';
import { integerIn, parseSubcommand, UsageError } from './shared.js';

/**
 * `trainprint model serve --model NAME [options]`: serves until SIGINT/SIGTERM.
 * @example process.exitCode = await modelCommand(['serve', '--model', 'byte-gpt-base', '--port', '0'])
 */
export async function modelCommand(args: string[]): Promise<number> {
  const values = parseSubcommand(args, 'model', 'serve', {
    model: { type: 'string' },
    'models-dir': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'api-key': { type: 'string' },
    'generations-only': { type: 'boolean' },
    engine: { type: 'string' },
    'allow-origin': { type: 'string' },
  });
  const name = values.model;
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,99}$/.test(name))
    throw new UsageError('model serve needs --model NAME (a directory of models/, e.g. byte-gpt-base)');
  const port = integerIn(values, 'port', 8000, 0, 65535);
  const engine = values.engine ?? 'wasm';
  if (engine !== 'wasm' && engine !== 'typescript') throw new UsageError('--engine must be wasm or typescript');
  const origin = values['allow-origin'];
  if (origin !== undefined && (typeof origin !== 'string' || (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin))))
    throw new UsageError('--allow-origin must be * or an origin such as http://127.0.0.1:3000 (no path)');
  // import.meta.url is dist/cli.js (this module is bundled into it): '../models/' is the package's models/
  const dirs =
    typeof values['models-dir'] === 'string'
      ? [values['models-dir']]
      : ['models', fileURLToPath(new URL('../models/', import.meta.url))];
  const dir = dirs.map((d) => join(d, name)).find((d) => existsSync(join(d, 'manifest.json')));
  if (dir === undefined) throw new UsageError(`no model ${JSON.stringify(name)} in ${dirs.join(' or ')}`);
  const { weights } = await readModelDirectory(dir);
  const model = await loadByteGptModel(weights, {
    id: name,
    engine,
    access: 'top_k',
    topK: 20,
  });
  const served = createByteGptHandler(model, {
    ...(typeof values['api-key'] === 'string' ? { apiKey: values['api-key'] } : {}),
    generationsOnly: values['generations-only'] === true,
  });
  const handler = typeof origin === 'string' ? withCors(served, origin) : served;
  const server = await serve(handler, { port, host: typeof values.host === 'string' ? values.host : '127.0.0.1' });
  console.log(`model ${name} (${engine}) serving the OpenAI completions API at ${server.url}/v1`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  return 0;
}
