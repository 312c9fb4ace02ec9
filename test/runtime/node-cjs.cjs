const lib = require('../../dist/index.cjs');
const starter = require('../../dist/starter.cjs');
import('./smoke.mjs')
  .then(({ smoke }) => smoke(lib, starter))
  .then((r) => console.log(JSON.stringify(r)), (e) => { console.error(e); process.exitCode = 1; });
