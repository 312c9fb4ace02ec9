import * as lib from '../../dist/index.js';
import * as models from '../../dist/models.js';
import * as text from '../../dist/text.js';
import * as starter from '../../dist/starter.js';
import { smoke } from './smoke.mjs';
console.log(JSON.stringify(await smoke({ ...lib, ...models, ...text }, starter)));
