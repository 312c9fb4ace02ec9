/**
 * `trainprint model serve` of the built CLI: starts on a free port with a committed test model, answers the OpenAI
 * completions API (models, an echoed prompt's log-probabilities, greedy text), stops on SIGTERM; refuses an unknown
 * model and a weights file whose SHA-256 is not the manifest's.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, requireBuiltCli, startModelServe } from '../fixtures/serve-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const run = (args: string[]) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: ROOT }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });

describe('trainprint model serve', () => {
  it('serves a committed model with the OpenAI completions API until SIGTERM', async () => {
    requireBuiltCli();
    const { child, url } = await startModelServe('byte-gpt-base');
    const models = await (await fetch(`${url}/v1/models`)).json();
    expect(models.data[0].id).toBe('byte-gpt-base');
    const r = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Fellow-Citizens', max_tokens: 8, temperature: 0, echo: true, logprobs: 2 }),
    });
    const body = await r.json();
    expect(r.status).toBe(200);
    expect(body.choices[0].text.startsWith('Fellow-Citizens')).toBe(true);
    expect(body.choices[0].logprobs.tokens.slice(0, 15).join('')).toBe('Fellow-Citizens');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses an unknown model and weights that are not the manifest’s', async () => {
    requireBuiltCli();
    const unknown = await run(['model', 'serve', '--model', 'no-such-model', '--port', '0']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.out).toMatch(/no model "no-such-model"/);
    const dir = mkdtempSync(join(tmpdir(), 'trainprint-models-'));
    dirs.push(dir);
    cpSync(join(ROOT, 'models', 'byte-gpt-base'), join(dir, 'tampered'), { recursive: true });
    writeFileSync(join(dir, 'tampered', 'weights.bin'), new Uint8Array(5_195_520));
    const tampered = await run(['model', 'serve', '--model', 'tampered', '--models-dir', dir, '--port', '0']);
    expect(tampered.code).not.toBe(0);
    expect(tampered.out).toMatch(/SHA-256/);
  });
});
