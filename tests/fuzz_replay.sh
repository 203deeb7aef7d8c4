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
set -- "$TD"/hpctoolkit/fuzz-seeds/*
have_shared && set -- "$@" "$SHARED"/hpctoolkit-data/v4-*
if "$top_builddir/tests/fuzz_hpctoolkit" "$@" >"$tmp/out" 2>&1; then
	ok "hpctoolkit fuzz target replayed $# inputs"
else
	not_ok "hpctoolkit fuzz target failed"
	tail -20 "$tmp/out" | sed 's/^/# /'
fi
# the writers: callgrind -> v4 -> check -> model -> callgrind, and
# callgrind -> callgrind, each total kept; `check` on database bytes
set -- "$TD"/callgrind/*.out* "$TD"/callgrind/bad/*.out* "$TD"/callgrind/fuzz-found/* \
	"$TD"/fuzz/pipeline/*
if "$top_builddir/tests/fuzz_pipeline" "$@" >"$tmp/out" 2>&1; then
	ok "pipeline fuzz target replayed $# inputs"
else
	not_ok "pipeline fuzz target failed"
	tail -20 "$tmp/out" | sed 's/^/# /'
fi
set -- "$TD"/callgrind/*.out* "$TD"/callgrind/bad/*.out* "$TD"/fuzz/cgwrite/*
if "$top_builddir/tests/fuzz_cgwrite" "$@" >"$tmp/out" 2>&1; then
	ok "callgrind writer fuzz target replayed $# inputs"
else
	not_ok "callgrind writer fuzz target failed"
	tail -20 "$tmp/out" | sed 's/^/# /'
fi
set -- "$TD"/hpctoolkit/fuzz-seeds/* "$TD"/fuzz/check/*
have_shared && set -- "$@" "$SHARED"/hpctoolkit-data/v4-*
if "$top_builddir/tests/fuzz_check" "$@" >"$tmp/out" 2>&1; then
	ok "check fuzz target replayed $# inputs"
else
	not_ok "check fuzz target failed"
	tail -20 "$tmp/out" | sed 's/^/# /'
fi
# DCPI: v0 binary files and dcpicat text (the content picks the parser)
set -- "$TD"/dcpi/xemacs* "$TD"/dcpi/db/*/*/* "$TD"/dcpi/bad/* "$TD"/fuzz/dcpi/*
if "$top_builddir/tests/fuzz_dcpi" "$@" >"$tmp/out" 2>&1; then
	ok "DCPI fuzz target replayed $# inputs"
else
	not_ok "DCPI fuzz target failed"
	tail -20 "$tmp/out" | sed 's/^/# /'
fi
done_testing
