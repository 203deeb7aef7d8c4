#!/bin/sh
# Replays every fixture (good and bad) through the fuzz targets, so they
# build and run in every `make check` without a fuzzing compiler.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
# replay WHAT TARGET INPUT...: one test per target
replay() {
	what=$1 target=$2
	shift 2
	if "$top_builddir/tests/$target" "$@" >"$tmp/out" 2>&1; then
		ok "$what fuzz target replayed $# inputs"
	else
		not_ok "$what fuzz target failed"
		tail -20 "$tmp/out" | sed 's/^/# /'
	fi
}
CGIN="$TD/callgrind"
# the Callgrind fixtures: the quick check replays the plain ones (the
# real producers' gzipped files, 3 MB unpacked and some 6 s of CPU
# through the three targets below, are read whole by the other scripts),
# the extras every one
set -- "$CGIN"/*.out*
heavy "the gzipped Callgrind fixtures through the fuzz targets" || set -- $(ls "$CGIN"/*.out* | grep -v '\.gz$')
CGGOOD="$*"
replay callgrind fuzz_callgrind $CGGOOD "$CGIN"/bad/*.out* "$CGIN"/fuzz-found/*
set -- "$TD"/hpctoolkit/fuzz-seeds/*
have_shared && set -- "$@" "$SHARED"/hpctoolkit-data/v4-*
replay hpctoolkit fuzz_hpctoolkit "$@"
# the writers: callgrind -> v4 -> check -> model -> callgrind, and
# callgrind -> callgrind, each total kept; `check` on database bytes
replay pipeline fuzz_pipeline $CGGOOD "$CGIN"/bad/*.out* \
	"$CGIN"/fuzz-found/* "$TD"/fuzz/pipeline/*
replay "callgrind writer" fuzz_cgwrite $CGGOOD "$CGIN"/bad/*.out* \
	"$TD"/fuzz/cgwrite/*
# every writer on models made from the bytes (NaN and infinities among
# the values, names of any bytes, traces in any order); the Callgrind
# fixtures as bytes too
replay "writers" fuzz_writers "$TD"/fuzz/writers/* "$CGIN"/*.out
# profconv diff in process: two Callgrind files to each output
replay diff fuzz_diff "$TD"/fuzz/diff/*
# -j: up to four Callgrind files read by two and three readers on
# threads, each model the serial one's, dump for dump
replay "readers on threads" fuzz_jobs "$TD"/fuzz/jobs/*
set -- "$TD"/hpctoolkit/fuzz-seeds/* "$TD"/fuzz/check/*
have_shared && set -- "$@" "$SHARED"/hpctoolkit-data/v4-*
replay check fuzz_check "$@"
# DCPI: one target per parser, v0 binary files and dcpicat text (each
# skips the other's inputs)
set -- "$TD"/dcpi/xemacs* "$TD"/dcpi/db/*/*/* "$TD"/dcpi/bad/* "$TD"/fuzz/dcpi/*
replay "DCPI v0" fuzz_dcpi "$@"
replay "DCPI dcpicat" fuzz_dcpicat "$@"
# perf script text and folded stacks: the fixtures, each format's
# through both targets
set -- "$TD"/perf/*.txt "$TD"/folded/*.folded
replay "perf script" fuzz_perf "$@"
replay "folded stacks" fuzz_folded "$@"
# ovni: one thread's stream.json + separator + stream.obs, built from the
# hand-made traces (good and damaged) and, with ../shared, the L3 samples
mkdir -p "$tmp/ovni"
set --
for t in "$TD"/ovni/*/loom.*/proc.*/thread.* "$TD"/ovni/bad/*/loom.*/proc.*/thread.*; do
	[ -d "$t" ] || continue # layouts L0-L2 have no stream.json
	k=$(($# + 1))
	{ cat "$t/stream.json"; printf '\n=PCFUZZ=\n'; cat "$t/stream.obs"; } >"$tmp/ovni/$k"
	set -- "$@" "$tmp/ovni/$k"
done
have_shared && [ -d "$SHARED/ovni-data" ] && for t in "$SHARED"/ovni-data/v3-*/ovni/loom.*/proc.*/thread.*; do
	k=$(($# + 1))
	{ cat "$t/stream.json"; printf '\n=PCFUZZ=\n'; cat "$t/stream.obs"; } >"$tmp/ovni/$k"
	set -- "$@" "$tmp/ovni/$k"
done
replay ovni fuzz_ovni "$@" "$TD"/fuzz/ovni/*
# old HPCToolkit databases: the binary files of each fixture (good and
# damaged) after a byte that picks its flavour's experiment.xml (see
# tests/fuzz_legacy_bin.c), and each experiment.xml alone
mkdir -p "$tmp/legacy" "$tmp/legacy-xml"
set --
for d in "$TD"/hpctoolkit-legacy/tiny-* "$TD"/hpctoolkit-legacy/bad/*; do
	k=$(($# + 1))
	mdb=$(ls "$d"/*.metric-db 2>/dev/null)
	{
		if [ -n "$mdb" ]; then printf 1; else printf 0; fi
		for f in profile.db cct.db trace.db \
			"$(echo "$mdb" | sed -n 1p)" "$(echo "$mdb" | sed -n 2p)" \
			"$(ls "$d"/*.hpctrace 2>/dev/null | sed -n 1p)" experiment-1.mdb experiment.mt; do
			case $f in /*) ;; ?*) f="$d/$f" ;; esac
			[ -f "$f" ] && cat "$f"
			printf '\n=PCFUZZ=\n'
		done
	} >"$tmp/legacy/$k"
	cp "$d/experiment.xml" "$tmp/legacy-xml/$k"
	set -- "$@" "$tmp/legacy/$k"
done
replay "old HPCToolkit binaries" fuzz_legacy_bin "$@" "$TD"/fuzz/legacy-bin/*
replay "old HPCToolkit XML" fuzz_legacy_xml "$tmp"/legacy-xml/* "$TD"/fuzz/legacy-xml/*
done_testing
