#!/bin/sh
# The forms table of bench/whole-works.mjs with DRAWS (40) seeded draws per cell, run as a background job in shards:
# the plain cases first (EPUB, PDF, DOCX × none/half/all against the hard-wrapped copy; EPUB and DOCX against the
# reflowed one), then every other cell. Each cell is appended to bench/results/whole-works-forms-draws.jsonl when
# done (a rerun goes on where the last stopped); each shard merges its cells into bench/results/whole-works.json.
#   nohup nice -n 10 sh bench/forms-draws.sh > /tmp/forms-draws.log 2>&1 &
# KINDS=infini-gram or KINDS=infini-gram-mini runs one engine's cells (two shards side by side, one per engine).
# (needs dist/: npm run build)
set -e
cd "$(dirname "$0")/.."
DRAWS=${DRAWS:-40}
P=bench/results/whole-works-forms-draws.jsonl
KINDS=${KINDS:-infini-gram,infini-gram-mini}
run() { node bench/whole-works.mjs --part forms --kinds "$KINDS" --draws "$DRAWS" --same-works --progress "$P" "$@"; }
run --files epub,pdf,docx --copies gutenberg --shares none,half,all
run --files epub,docx --copies reflowed --shares none,half,all
run
