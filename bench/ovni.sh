#!/bin/sh
# ovni benchmark: a generated trace of NTHREADS threads x NEVENTS events
# each (default 64 x 10^6; bench/gen_ovni.c: marks, nosv and MPI regions
# nested four deep) converted to a v4 database with trace.db, against
# `cat` of the same bytes. Usage: sh bench/ovni.sh [BUILD_DIR] [NTHREADS]
# [NEVENTS]. Needs cc and GNU time. OVNIEMU=PATH: compare with ovniemu.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
nth=${2:-64}
nev=${3:-1000000}
work=${BENCH_DIR:-/tmp/profconv-bench-ovni}
tr="$work/trace-$nth-$nev"
mkdir -p "$work"
if [ ! -d "$tr" ]; then
	cc -O2 -o "$work/gen_ovni" "$top/bench/gen_ovni.c"
	"$work/gen_ovni" "$tr" "$nth" "$nev"
fi
bytes=$(cat "$tr"/loom.*/proc.*/thread.*/stream.obs | wc -c)
events=$((nth * nev))
echo "input: $nth threads x $nev events, $(echo "$bytes" | awk '{printf "%.1f", $1 / 1e6}') MB"
# CPU seconds (user + system), wall seconds, peak kB
t() { /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; exit 1; }; awk '{printf "%.2f %.2f %d", $2 + $3, $1, $4}' "$work/time"; }
set -- $(t sh -c "cat '$tr'/loom.*/proc.*/thread.*/stream.obs >/dev/null"); cat_s=$1
# the last run's output goes first, and its dirty pages to disk: their
# writeback and eviction would otherwise be charged to this run (0.7 to
# 4 s of system time on this machine)
rm -rf "$work/out.d" "$work/emu"; sync
set -- $(t "$build/profconv" convert -q "$tr" -o "$work/out.d"); v4_s=$1; v4_w=$2; v4_kb=$3
awk -v b="$bytes" -v e="$events" -v c="$cat_s" -v v="$v4_s" -v w="$v4_w" -v k="$v4_kb" 'BEGIN {
	printf "cat:          %6.2f s CPU\n", c
	printf "ovni -> v4:   %6.2f s CPU (%.2f s wall)  %6.1f M events/s  %6.1f MB/s  %.1f x cat  peak %d MB\n", v, w, e / 1e6 / (v ? v : 0.01), b / 1e6 / (v ? v : 0.01), v / (c ? c : 0.01), k / 1024
}'
# OVNIEMU=/path/to/ovniemu (built from ovni's public source; not a
# dependency): the same trace through ovniemu (on a copy: it writes its
# Paraver files into the trace), timed, and the per-thread state times of
# its thread.prv compared with the database's (tests/ovni_*.awk)
if [ -n "${OVNIEMU:-}" ]; then
	rm -rf "$work/emu" && cp -r "$tr" "$work/emu" && sync
	set -- $(t "$OVNIEMU" "$work/emu"); emu_s=$1; emu_w=$2; emu_kb=$3
	awk -v e="$events" -v v="$v4_s" -v m="$emu_s" -v w="$emu_w" -v k="$emu_kb" 'BEGIN {
		printf "ovniemu:      %6.2f s CPU (%.2f s wall)  %6.1f M events/s  peak %d MB; profconv is %.1f x faster\n", m, w, e / 1e6 / (m ? m : 0.01), k / 1024, m / (v ? v : 0.01)
	}'
	awk -f "$top/tests/ovni_prv.awk" "$work/emu/thread.pcf" "$work/emu/thread.prv" | sort >"$work/prv.tsv"
	"$build/profconv" dump -q "$work/out.d" | awk -f "$top/tests/ovni_db.awk" | sort >"$work/db.tsv"
	if cmp -s "$work/prv.tsv" "$work/db.tsv"; then
		echo "state times: $(wc -l <"$work/prv.tsv") (thread, channel, state) equal ovniemu's to the ns"
	else
		echo "state times DIFFER from ovniemu's: diff $work/prv.tsv $work/db.tsv"
	fi
fi
