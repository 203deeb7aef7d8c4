#!/bin/sh
# Remakes the fixtures of this directory from ../perf with FlameGraph's
# scripts (FLAMEGRAPH=DIR of a clone of brendangregg/FlameGraph):
# stackcollapse-perf.pl's folded stacks of two recordings of thr, and
# difffolded.pl's two-count lines of them (two runs compared).
set -e
out=$(cd "$(dirname "$0")" && pwd)
fg=${FLAMEGRAPH:?FLAMEGRAPH=DIR of a clone of brendangregg/FlameGraph}
perl "$fg/stackcollapse-perf.pl" "$out/../perf/thr.txt" >"$out/thr.folded"
perl "$fg/stackcollapse-perf.pl" "$out/../perf/thr.inline.txt" >"$out/thr.inline.folded"
perl "$fg/difffolded.pl" "$out/thr.folded" "$out/thr.inline.folded" >"$out/thr.diff.folded"
