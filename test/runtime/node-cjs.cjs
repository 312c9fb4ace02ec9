const lib = require('../../dist/index.cjs');
import('./smoke.mjs')
  .then(({ smoke }) => smoke(lib))
  .then((r) => console.log(JSON.stringify(r)), (e) => { console.error(e); process.exitCode = 1; });
