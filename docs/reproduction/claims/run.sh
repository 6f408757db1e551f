#!/bin/sh
# Seed 000's claims under every scheduler view (docs/reproduction.md,
# "Seed 000's claims under each scheduler view"): one sweep per view and
# network, then the tables and verdicts.
#
#   sh docs/reproduction/claims/run.sh [OUT [LOADS]]
#
# Run from the repository root. OUT (default sweeps/claims) receives
# OUT/<view>/<preset>/ (runs/, summary.json, summary.csv, plots/) and
# OUT/claims.md; LOADS (default 1.0) is passed to --loads, and the tables
# are made for every load in it. A sweep already complete is reused run by
# run (opasim sweep skips the runs it finds). JOBS (default 1) runs at once;
# the 90 runs at load 1.0 took 54 minutes one at a time.
set -e
OUT=${1:-sweeps/claims}
LOADS=${2:-1.0}
mkdir -p "$OUT"
go build -o "$OUT/opasim" ./cmd/opasim
for view in table table_feedback eligible; do
  for p in tree-24ary-2 torus2d-8x8; do
    nice -n 15 "$OUT/opasim" sweep --preset $p --traffic paper-mix \
      --schedulers rr_burst,sbt,dtable --scheduler-view $view \
      --loads "$LOADS" --seeds 5 --cycles 20000 --warmup 8000 --jobs "${JOBS:-1}" \
      --progress log --out "$OUT/$view/$p"
  done
done
: > "$OUT/claims.md"
for load in $(echo "$LOADS" | tr ',' ' '); do
  python3 docs/reproduction/claims/claims.py "$OUT" "$load" >> "$OUT/claims.md"
done
cat "$OUT/claims.md"
