const lib = require('../../dist/index.cjs');
const models = require('../../dist/models.cjs');
const text = require('../../dist/text.cjs');
const starter = require('../../dist/starter.cjs');
// every entry of package.json with a CommonJS file (trainprint/node is ESM only), but the separate bundles
// fingerprint and client: one library, as in ESM (node-esm.mjs)
const entries = {};
for (const [key, target] of Object.entries(require('../../package.json').exports)) {
  if (target.require && !['./fingerprint', './client'].includes(key))
    entries[`trainprint${key.slice(1)}`] = require(`../../${target.require.default}`);
}
import('./smoke.mjs')
  .then(async ({ oneLibrary, smoke }) => {
    const problems = await oneLibrary(entries);
    if (problems.length) throw new Error(`the entries are not one library (CommonJS):\n  ${problems.join('\n  ')}`);
    return smoke({ ...lib, ...models, ...text }, starter);
  })
  .then((r) => console.log(JSON.stringify(r)), (e) => { console.error(e); process.exitCode = 1; });
