#!/bin/sh
# A perf trail for every path, in one run (issues "Close to the I/O
# floor", "ahead of every peer on every path"): for each conversion
# (every input format, every output format), the CPU time (user +
# system), the peak RSS (GNU time), the instructions (callgrind's
# total, once: exact where the CPU time is noisy on a shared machine;
# INSN=0 leaves them out) and the CPU time against the I/O floor (the
# CPU time of `cat INPUT >/dev/null` plus that of `dd if=/dev/zero of=F
# bs=1M count=<output MiB>` on the same file system). Each command runs
# pinned to one core (taskset), after memory is touched and freed (this
# VM charges the first touch of memory given back to the host), in
# ROUNDS interleaved rounds (default 3); the table gives the medians.
# Peers in the same rounds: callgrind_annotate and KCachegrind's load
# (headless) of the Callgrind inputs, ovniemu of the ovni trace
# (OVNIEMU=PATH). The table's head gives the commit, the date and the
# load average before and after (other processes on the machine make the
# CPU times noisy; the instructions are not).
#   sh bench/floor.sh BUILD_DIR
# Inputs, generated and kept in BENCH_DIR (default
# /tmp/profconv-bench-floor): the cc1plus fixture (2 MB, real), a
# Callgrind file of CG_FUNCS functions x 60 lines (default 50000: 70
# MB), an old database of OLD (default "64 100000": 139 MB) and its v4
# database, an ovni trace of OVNI (default "16 2000000": 3.2 x 10^7
# events, 489 MB), a DCPI database of DCPI (default "1000 10000").
# ANNOTATE=0 / KCACHEGRIND=0 leave those peers out. A run's own files
# (samples, GNU time's, outputs) go in a directory of its own under
# BENCH_DIR (bench/lib.sh, run_dir).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: sh bench/floor.sh BUILD_DIR}/profconv
work=${BENCH_DIR:-/tmp/profconv-bench-floor}
rounds=${ROUNDS:-3}
mkdir -p "$work"
. "$top/bench/lib.sh"

# ---- inputs ----
bench_inputs
run_dir
# the conversions: label, input, output (a name in $run): every input
# format to v4, and every output format from one input of each kind
conversions() {
	echo "cc1plus (real Callgrind) -> v4|$cg|cc1plus.d"
	echo "cc1plus -> Callgrind|$cg|cc1plus.callgrind"
	echo "cc1plus -> pprof|$cg|cc1plus.pb.gz"
	echo "cc1plus -> folded|$cg|cc1plus.folded"
	echo "cc1plus -> SVG|$cg|cc1plus.svg"
	echo "Callgrind generated -> v4|$gen|gen.d"
	echo "old database -> v4|$old|old.d"
	echo "old database -> Callgrind|$old|old.callgrind"
	echo "v4 (its output) -> v4|$oldv4|old2.d"
	echo "v4 (its output) -> Callgrind|$oldv4|callgrind.out.old"
	echo "ovni -> v4 + trace.db|$ovni|ovni.d"
	echo "ovni -> Chrome trace|$ovni|ovni.json"
	echo "DCPI -> v4|$dcpi|dcpi.d"
	echo "DCPI -> Callgrind|$dcpi|dcpi.callgrind"
}

# cpu COMMAND...: "CPU-SECONDS PEAK-KB" (user + system; GNU time's
# maximum resident set size), after touching and freeing 256 MiB
cpu() {
	set -- $(measured '%U %S %M' "$@")
	case "$1$2$3" in
	'' | *[!0-9.]*) echo "bench/floor.sh: GNU time gave '$*'" >&2; exit 1 ;;
	esac
	awk -v u="$1" -v s="$2" -v m="$3" 'BEGIN { printf "%.3f %d\n", u + s, m }'
}

# insn COMMAND...: the instructions it runs (callgrind's total, millions)
insn() {
	rm -f "$run/cg.out"
	valgrind --tool=callgrind --callgrind-out-file="$run/cg.out" "$@" \
		</dev/null >/dev/null 2>"$run/vg.err" ||
		{ echo "bench/floor.sh: valgrind $*: failed" >&2; cat "$run/vg.err" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2 / 1e6; exit }' "$run/cg.out"
	rm -f "$run/cg.out"
}

: >"$run/samples"
r=1
while [ $r -le "$rounds" ]; do
	conversions | while IFS='|' read -r label in out; do
		rm -rf "${run:?}/$out"
		set -- $(cpu "$bin" convert -q -o "$run/$out" "$in")
		t=$1 rss=$2
		obytes=$(bytes "$run/$out")
		if [ -d "$in" ]; then
			c=$(cpu sh -c "find '$in' -type f -exec cat {} + >/dev/null")
		else
			c=$(cpu cat "$in")
		fi
		mib=$(((obytes + 1048575) / 1048576))
		d=$(cpu dd if=/dev/zero of="$run/dd.out" bs=1M count="$mib" status=none)
		c=${c%% *} d=${d%% *}
		rm -f "$run/dd.out"
		rm -rf "${run:?}/$out"
		ins=-
		if [ $r = 1 ] && [ "${INSN:-1}" != 0 ] && command -v valgrind >/dev/null; then
			ins=$(insn "$bin" convert -q -j1 -o "$run/$out" "$in")
			rm -rf "${run:?}/$out"
		fi
		echo "$label|$(bytes "$in")|$obytes|$t|$c|$d|$rss|$ins" >>"$run/samples"
	done
	if [ "${ANNOTATE:-1}" != 0 ] && command -v callgrind_annotate >/dev/null; then
		echo "peer|callgrind_annotate cc1plus|$(cpu callgrind_annotate "$cg" | tr ' ' '|')" >>"$run/samples"
		echo "peer|callgrind_annotate generated|$(cpu callgrind_annotate "$gen" | tr ' ' '|')" >>"$run/samples"
	fi
	if [ "${KCACHEGRIND:-1}" != 0 ] && command -v kcachegrind >/dev/null; then
		printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n3 10\n' >"$run/tiny.out"
		base=$(kc "$run/tiny.out")
		echo "peer|KCachegrind cc1plus|$(echo "$(kc "$cg") $base" | awk '{print $1 - $2}')|-" >>"$run/samples"
		echo "peer|KCachegrind generated|$(echo "$(kc "$gen") $base" | awk '{print $1 - $2}')|-" >>"$run/samples"
	fi
	if [ -n "${OVNIEMU:-}" ]; then
		# on a copy: ovniemu 1.14 writes its Paraver files into the
		# trace's directory (3 times the trace: the next rounds' input
		# and floor took them in)
		rm -rf "$run/emu" && cp -r "$ovni" "$run/emu"
		echo "peer|ovniemu|$(cpu "$OVNIEMU" "$run/emu" | tr ' ' '|')" >>"$run/samples"
		rm -rf "$run/emu"
	fi
	r=$((r + 1))
done

# every line whole (label and its 7 fields; a peer's 3): else say which
bad=$(awk -F'|' '($1 == "peer" ? NF != 4 : NF != 8) { print NR ": " $0 }' "$run/samples")
[ -z "$bad" ] || { echo "bench/floor.sh: broken sample lines:" >&2; echo "$bad" >&2; exit 1; }

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
echo "commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $rounds rounds, load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
# medians per conversion (and per peer), in the order they ran
awk -F'|' "$MEDIAN_AWK"'
$1 == "peer" {
	if (!($2 in p)) porder[np++] = $2
	p[$2] = p[$2] " " $3
	if ($4 != "-") pm[$2] = pm[$2] " " $4
	next
}
{
	if (!($1 in t)) order[n++] = $1
	in_[$1] = $2; out[$1] = $3
	t[$1] = t[$1] " " $4; f[$1] = f[$1] " " ($5 + $6); m[$1] = m[$1] " " $7
	if ($8 != "-") ins[$1] = $8
}
END {
	printf "%-32s %9s %9s %8s %9s %8s %8s %8s\n", "conversion", "input MB", "output MB", "CPU s", "Minstr", "peak MB", "floor s", "x floor"
	for (i = 0; i < n; i++) {
		k = order[i]; tt = median(t[k]); ff = median(f[k])
		mi = (k in ins) ? sprintf("%.0f", ins[k]) : "-"
		pk = median(m[k]) / 1024
		# below the timer resolution (10 ms) the floor is a bound, and so is the ratio
		if (ff < 0.01)
			printf "%-32s %9.1f %9.1f %8.2f %9s %8.1f %8s %8s\n", k, in_[k] / 1e6, out[k] / 1e6, tt, mi, pk, "<0.010", sprintf(">%.0f", tt / 0.01)
		else
			printf "%-32s %9.1f %9.1f %8.2f %9s %8.1f %8.3f %8.1f\n", k, in_[k] / 1e6, out[k] / 1e6, tt, mi, pk, ff, tt / ff
	}
	for (i = 0; i < np; i++) {
		k = porder[i]
		printf "peer: %-26s %19s %8.2f %9s %8s\n", k, "", median(p[k]), "-", (k in pm) ? sprintf("%.1f", median(pm[k]) / 1024) : "-"
	}
}' "$run/samples"
