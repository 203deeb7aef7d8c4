#!/bin/sh
# Every conversion against its I/O floor, in one run (issue "Close to
# the I/O floor"): the CPU time (user + system) of `profconv convert`
# divided by the floor, the CPU time of `cat INPUT >/dev/null` plus that
# of `dd if=/dev/zero of=F bs=1M count=<output MiB>` on the same file
# system. Each command runs pinned to one core (taskset), after memory
# is touched and freed (this VM charges the first touch of memory given
# back to the host), in ROUNDS interleaved rounds (default 3); the
# table gives the medians. Peers in the same rounds: callgrind_annotate
# and KCachegrind's load (headless) of the Callgrind inputs, ovniemu of
# the ovni trace (OVNIEMU=PATH).
#   sh bench/floor.sh BUILD_DIR
# Inputs, generated and kept in BENCH_DIR (default
# /tmp/profconv-bench-floor): the cc1plus fixture (2 MB, real), a
# Callgrind file of CG_FUNCS functions x 60 lines (default 50000: 70
# MB), an old database of OLD (default "64 100000": 139 MB) and its v4
# database, an ovni trace of OVNI (default "16 2000000": 3.2 x 10^7
# events, 489 MB), a DCPI database of DCPI (default "1000 10000").
# ANNOTATE=0 / KCACHEGRIND=0 leave those peers out.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: sh bench/floor.sh BUILD_DIR}/profconv
work=${BENCH_DIR:-/tmp/profconv-bench-floor}
rounds=${ROUNDS:-3}
mkdir -p "$work"
. "$top/bench/lib.sh"
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"

# ---- inputs ----
bench_inputs
# the conversions: label, input, output (a name in $work)
conversions() {
	echo "cc1plus (real Callgrind) -> v4|$cg|cc1plus.d"
	echo "Callgrind generated -> v4|$gen|gen.d"
	echo "old database -> v4|$old|old.d"
	echo "v4 (its output) -> v4|$oldv4|old2.d"
	echo "v4 (its output) -> Callgrind|$oldv4|callgrind.out.old"
	echo "ovni -> v4 + trace.db|$ovni|ovni.d"
	echo "DCPI -> v4|$dcpi|dcpi.d"
}

# cpu COMMAND...: prints the CPU seconds (user + system) it took, after
# touching and freeing 256 MiB
cpu() {
	measured '%U %S' "$@" >/dev/null
	awk '{ printf "%.3f\n", $1 + $2 }' "$work/time"
}

: >"$work/samples"
r=1
while [ $r -le "$rounds" ]; do
	conversions | while IFS='|' read -r label in out; do
		rm -rf "${work:?}/$out"
		t=$(cpu "$bin" convert -q -o "$work/$out" "$in")
		obytes=$(bytes "$work/$out")
		if [ -d "$in" ]; then
			c=$(cpu sh -c "find '$in' -type f -exec cat {} + >/dev/null")
		else
			c=$(cpu cat "$in")
		fi
		mib=$(((obytes + 1048575) / 1048576))
		d=$(cpu dd if=/dev/zero of="$work/dd.out" bs=1M count="$mib" status=none)
		rm -f "$work/dd.out" "$work/$out.tmp"
		rm -rf "${work:?}/$out"
		echo "$label|$(bytes "$in")|$obytes|$t|$c|$d" >>"$work/samples"
	done
	if [ "${ANNOTATE:-1}" != 0 ] && command -v callgrind_annotate >/dev/null; then
		echo "peer|callgrind_annotate cc1plus|$(cpu callgrind_annotate "$cg")" >>"$work/samples"
		echo "peer|callgrind_annotate generated|$(cpu callgrind_annotate "$gen")" >>"$work/samples"
	fi
	if [ "${KCACHEGRIND:-1}" != 0 ] && command -v kcachegrind >/dev/null; then
		printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n3 10\n' >"$work/tiny.out"
		base=$(kc "$work/tiny.out")
		echo "peer|KCachegrind cc1plus|$(echo "$(kc "$cg") $base" | awk '{print $1 - $2}')" >>"$work/samples"
		echo "peer|KCachegrind generated|$(echo "$(kc "$gen") $base" | awk '{print $1 - $2}')" >>"$work/samples"
	fi
	if [ -n "${OVNIEMU:-}" ]; then
		rm -rf "$ovni/ovni"
		echo "peer|ovniemu|$(cpu "$OVNIEMU" "$ovni")" >>"$work/samples"
		rm -rf "$ovni/ovni"
	fi
	r=$((r + 1))
done

# medians per conversion (and per peer), in the order they ran
awk -F'|' "$MEDIAN_AWK"'
$1 == "peer" {
	if (!($2 in p)) porder[np++] = $2
	p[$2] = p[$2] " " $3
	next
}
{
	if (!($1 in t)) order[n++] = $1
	in_[$1] = $2; out[$1] = $3
	t[$1] = t[$1] " " $4; f[$1] = f[$1] " " ($5 + $6)
}
END {
	printf "%-32s %9s %9s %8s %8s %8s\n", "conversion", "input MB", "output MB", "CPU s", "floor s", "x floor"
	for (i = 0; i < n; i++) {
		k = order[i]; tt = median(t[k]); ff = median(f[k])
		# below the timer resolution (10 ms) the floor is a bound, and so is the ratio
		if (ff < 0.01)
			printf "%-32s %9.1f %9.1f %8.2f %8s %8s\n", k, in_[k] / 1e6, out[k] / 1e6, tt, "<0.010", sprintf(">%.0f", tt / 0.01)
		else
			printf "%-32s %9.1f %9.1f %8.2f %8.3f %8.1f\n", k, in_[k] / 1e6, out[k] / 1e6, tt, ff, tt / ff
	}
	for (i = 0; i < np; i++)
		printf "peer: %-26s %28s %8.2f\n", porder[i], "", median(p[porder[i]])
}' "$work/samples"
