import * as lib from '../../dist/index.js';
import { smoke } from './smoke.mjs';
console.log(JSON.stringify(await smoke(lib)));
