// `npm run bench`: installs the benchmark-only peers into bench/node_modules on first use (they are
// never part of the package or the CI install), checks that dist/ is built, then runs every bench.
import './help.mjs';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!existsSync(new URL('../dist/index.js', import.meta.url))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
if (!existsSync(new URL('./node_modules/bloom-filters', import.meta.url))) {
  console.log('installing benchmark peers into bench/node_modules …');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', here], { stdio: 'inherit' });
}
const args = process.argv.slice(2);
for (const script of ['fingerprint.mjs', 'index.mjs']) {
  execFileSync(process.execPath, ['--expose-gc', fileURLToPath(new URL(`./${script}`, import.meta.url)), ...args], {
    stdio: 'inherit',
  });
}
