// Name the document the match is: READMEs that end with a licence of the SPDX starter dataset (the licence text of
// the `spdx-license-list` devDependency, after 90–200 words of a README written here), analysed with the starter
// loaded as `trainprint analyze` loads it. Per licence: is it the first exact match's document (the one the passage
// covers most completely), and does the summary name it — and never call the content "the whole" of it when the
// licence is only part of the README (estimated Jaccard below 0.9).
//
// --set kin: 20 other licences that hold a shorter one's text or sit inside a longer one (JSON and MIT-feh hold MIT's,
// BSD-3-Clause-Clear and -No-Nuclear the BSD clauses, ECL-2.0 most of Apache-2.0 …), after READMEs of their own:
// written for this measurement after the rule was set, never tuned on.
//
//   node bench/eval-licence-naming.mjs [--dist DIR] [--set dev|kin] [--out NAME]
import './help.mjs';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: fileURLToPath(new URL('../dist/', import.meta.url)) },
    set: { type: 'string', default: 'dev' },
    out: { type: 'string' },
  },
});
const kin = args.set === 'kin';
const { createEngine } = await import(pathToFileURL(join(resolve(args.dist), 'index.js')).href);
const { loadStarterDataset } = await import(pathToFileURL(join(resolve(args.dist), 'starter.js')).href);
const require = createRequire(import.meta.url);
const DEV = [
  'MIT',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'ISC',
  'Apache-2.0',
  'Zlib',
  'X11',
  'UPL-1.0',
  'Bitstream-Vera',
  'CUA-OPL-1.0',
  'MIT-0',
  '0BSD',
  'Unlicense',
  'BSL-1.0',
  'PostgreSQL',
  'NCSA',
  'curl',
  'WTFPL',
  'MPL-2.0',
  'Artistic-2.0',
];
const KIN = [
  'JSON',
  'MIT-feh',
  'Xnet',
  'MITNFA',
  'MIT-advertising',
  'MIT-CMU',
  'BSD-3-Clause-Clear',
  'BSD-3-Clause-No-Nuclear-License-2014',
  'BSD-4-Clause',
  'BSD-1-Clause',
  'BSD-2-Clause-Patent',
  'HPND',
  'NTP',
  'ICU',
  'Apache-1.1',
  'ECL-2.0',
  'zlib-acknowledgement',
  'Fair',
  'TCL',
  'W3C',
];
const LICENCES = kin ? KIN : DEV;
const DEV_READMES = [
  'Harbourline is a small command-line tool that reads the tide tables published by the harbour office and prints the next high and low water for a station. It keeps the feed for an hour, knows the three station codes of the east coast and prints local or universal time. Run it with a station code, or without one to list the stations.',
  'This repository holds the scripts our reading group uses to turn the weekly book list into a printable calendar. They read a plain text file with one title per line, look up the page counts we typed in by hand, and spread the reading over the weeks until the next meeting. Nothing here talks to the network; the output is a single HTML page you can print from any browser. Pull requests that add other calendar layouts are welcome, as are corrections to the page counts.',
  'A library of small geometry helpers for the plotting code of our field station: distances on the sphere, bearings between two points, the area of a polygon given in degrees, and the conversion between the grid references of the old survey maps and latitude and longitude. Every function has a test with a worked example from the survey handbook. The code has no dependencies and runs in the browser and in Node.',
];

const KIN_READMES = [
  'Quillstone converts the handwritten index cards of a parish archive, scanned as images, into a searchable list of names, dates and places. A volunteer checks each card on screen before it is saved, and the tool remembers which cards are still open.',
  'These are the build files for a weather balloon logger: the firmware reads pressure, temperature and position once a second and writes them to the memory card, and a small desktop program draws the flight path and the temperature against height after recovery. The wiring diagram is in the docs folder; the parts list names the sensors we used and what they cost in 2024.',
  'Tallyboard keeps score for amateur rowing regattas. Each crew is entered once with its club and category; the timing volunteers at the start and the finish tap their phones, and the board shows the results per race, the heats that follow and the club table at the end of the day. It works offline and syncs when a network comes back.',
];
const READMES = kin ? KIN_READMES : DEV_READMES;

const engine = await createEngine();
await loadStarterDataset(engine);
const rows = [];
for (const [i, id] of LICENCES.entries()) {
  const text = require(`spdx-license-list/licenses/${id}.json`).licenseText;
  const content = `# Project\n\n${READMES[i % READMES.length]}\n\n## Licence\n\n${text}`;
  const r = await engine.analyze({ content, content_type: 'markdown' });
  const exact = r.matches.filter((m) => m.kind === 'exact');
  const summary = r.corpus_evidence.summary;
  rows.push({
    licence: id,
    licence_share: +(text.split(/\s+/).length / content.split(/\s+/).length).toFixed(2),
    first: exact[0]?.document_id ?? null,
    named_first: exact[0]?.document_id === id,
    summary_names: summary.includes(`"${id}"`),
    whole_claimed: /the whole content is a near-duplicate/.test(summary),
    near: r.matches.filter((m) => m.kind === 'near').map((m) => [m.document_id, +m.score.toFixed(2)]),
  });
}
engine.dispose();
const report = {
  date: new Date().toISOString().slice(0, 10),
  dist: args.dist,
  set: kin ? 'kin' : 'dev',
  licences: rows.length,
  named_first: rows.filter((x) => x.named_first).length,
  summary_names: rows.filter((x) => x.summary_names).length,
  whole_claimed_below_0_9: rows.filter((x) => x.whole_claimed && !x.near.some(([d, j]) => d === x.licence && j >= 0.9))
    .length,
  rows,
};
console.log(
  `${report.named_first}/${report.licences} named first, ${report.summary_names} named by the summary, ` +
    `${report.whole_claimed_below_0_9} called the whole content below Jaccard 0.9`,
);
writeFileSync(
  fileURLToPath(
    new URL(`./results/${args.out ?? (kin ? 'eval-licence-naming-kin' : 'eval-licence-naming')}.json`, import.meta.url),
  ),
  `${JSON.stringify(report, null, 2)}\n`,
);
