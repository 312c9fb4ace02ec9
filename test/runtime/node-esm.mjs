import * as lib from '../../dist/index.js';
import * as starter from '../../dist/starter.js';
import { smoke } from './smoke.mjs';
console.log(JSON.stringify(await smoke(lib, starter)));
