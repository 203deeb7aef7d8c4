#!/bin/sh
# Replays every fixture (good and bad) through the fuzz targets, so they
# build and run in every `make check` without a fuzzing compiler.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -- "$TD"/callgrind/*.out* "$TD"/callgrind/bad/*.out* "$TD"/callgrind/fuzz-found/*
if "$top_builddir/tests/fuzz_callgrind" "$@" >"$tmp/out" 2>&1; then
	ok "callgrind fuzz target replayed $# inputs"
else
	not_ok "callgrind fuzz target failed"
	tail -20 "$tmp/out" | sed 's/^/# /'
fi
set -- "$SHARED"/hpctoolkit-data/v4-* "$TD"/hpctoolkit/fuzz-seeds/*
if "$top_builddir/tests/fuzz_hpctoolkit" "$@" >"$tmp/out" 2>&1; then
	ok "hpctoolkit fuzz target replayed $# inputs"
else
	not_ok "hpctoolkit fuzz target failed"
	tail -20 "$tmp/out" | sed 's/^/# /'
fi
done_testing
