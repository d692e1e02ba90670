#!/usr/bin/env bash
# Golden outputs of the model (see bench/golden.ts): `bench/golden.sh DIR` writes the CLI's
# `run --json` of every bundled scenario (and a few seeds and a compare) plus golden.ts's
# runs into DIR; `bench/golden.sh DIR BASE` then diffs DIR against BASE (exit 1 on any
# difference). Speed work must leave these byte-identical.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/golden.sh DIR [BASE]}
mkdir -p "$out"
run() { npx tsx src/cli/main.ts "$@"; }
for f in scenarios/*.yaml; do
  id=$(basename "$f" .yaml)
  run run "$id" --json > "$out/$id.json" 2>/dev/null; echo $? > "$out/$id.rc"
done
run run steady-state-upload --json --seed 7 > "$out/steady-seed7.json" 2>/dev/null
run run kip1023-leader-epochs --json --seed 99 > "$out/leader-epochs-seed99.json" 2>/dev/null
run compare wal-steady-state --json > "$out/compare-wal-steady.json" 2>/dev/null
run conformance --json > "$out/conformance.json" 2>/dev/null; echo $? > "$out/conformance.rc"
npx tsx bench/golden.ts "$out" >/dev/null
if [ $# -ge 2 ]; then
  if diff -rq "$2" "$out"; then echo "golden: identical to $2"; else echo "golden: DIFFERS from $2"; exit 1; fi
fi
