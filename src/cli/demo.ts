/**
 * `trainprint demo` (also `trainprint` alone): fingerprint two built-in passages and compare them, then analyze a
 * README that quotes the MIT licence against the embedded starter dataset (SPDX licence texts).
 */
import { createEngine } from '../library.js';
import { parse, UsageError } from './shared.js';
import { loadStarter } from './starter-file.js';
import { summary } from './summary.js';

/** Two passages to compare: A from A Tale of Two Cities, B a review that quotes it with other case and punctuation. */
const A = `It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of
foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light,
it was the season of Darkness, it was the spring of hope, it was the winter of despair.`;
const B = `"IT WAS the best of times; it was the worst of times," wrote Dickens — it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief... and then the reviewer moved on.`;

/** A README that quotes the MIT licence: the starter dataset holds the licence text. */
const README_MIT = `# widget

A small library.

## License

Copyright (c) 2024 Jane Doe

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:
`;

/**
 * `trainprint demo`: prints the two fingerprints' summaries and similarity, their first shared fingerprints, and
 * the analysis of README_MIT; takes no arguments.
 * @example process.exitCode = await demoCommand([])
 */
export async function demoCommand(args: string[]): Promise<number> {
  const { positionals } = parse(args, {}); // --help and -h print the help; any other option is a usage error
  if (positionals.length) throw new UsageError('demo takes no arguments');
  const engine = await createEngine();
  const [fa, fb] = [await engine.fingerprint(A), await engine.fingerprint(B)];
  const sim = engine.similarity(fa, fb);
  const shared = [...new Set(fa.winnow!.hashes)].filter((h) => fb.winnow!.hashes.includes(h));
  console.log(JSON.stringify({ engine: engine.variant, a: summary(fa), b: summary(fb), similarity: sim }, null, 2));
  for (const h of shared.slice(0, 3)) {
    const i = fa.winnow!.hashes.indexOf(h),
      j = fb.winnow!.hashes.indexOf(h);
    console.log(
      `shared fingerprint ${h.toString(16).padStart(16, '0')}: A "${A.slice(fa.winnow!.starts[i], fa.winnow!.ends[i])}" ~ B "${B.slice(fb.winnow!.starts[j], fb.winnow!.ends[j])}"`,
    );
  }
  const stats = await loadStarter(engine);
  const r = await engine.analyze({ content: README_MIT, content_type: 'markdown', metadata: { jurisdiction: 'US' } });
  const top = r.matches.find((m) => m.document_id === 'MIT') ?? r.matches[0];
  console.log(
    `\nanalyze (markdown README quoting the MIT licence) against the starter dataset (${stats.documents} SPDX licence texts):`,
  );
  console.log(
    JSON.stringify(
      {
        potential_matches: r.potential_matches,
        first_match: top && { ...top, text: README_MIT.slice(top.query_start, top.query_end).slice(0, 80) + '…' },
        confidence: r.confidence,
        attribution_sources: r.attribution_sources,
        risk_assessment: { level: r.risk_assessment.level, factors: r.risk_assessment.factors },
        limitations: r.limitations,
      },
      null,
      2,
    ),
  );
  console.log('(the licence texts are a reference sample with no documented model link: matches, but no attribution)');
  return 0;
}
