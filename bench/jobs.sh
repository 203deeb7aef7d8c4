#!/bin/sh
# Every core (issue "Close to the I/O floor", -j): the wall time of each
# conversion at -j1 and at -jN (N: JOBS, default the cores available),
# their ratio, and the phases convert --verbose reports (reading and
# writing the profiles; the rest of the output: cct.db, meta.db, the
# validation) at both, medians of ROUNDS interleaved rounds (default 3),
# after memory is touched and freed (this VM charges the first touch of
# memory given back to the host). The inputs are bench/floor.sh's, in
# the same BENCH_DIR. From the phases, an Amdahl fit per conversion:
# serial s and parallel p seconds with T(1) = s + p, T(N) = s + p / N,
# and the wall time that gives at 16 and 64 cores (an estimate: the
# importer reads on one thread, and a phase's parallel part at -jN on
# this machine may not scale as 1/N).
#   sh bench/jobs.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: sh bench/jobs.sh BUILD_DIR}/profconv
work=${BENCH_DIR:-/tmp/profconv-bench-floor}
rounds=${ROUNDS:-3}
jobs=${JOBS:-$(nproc)}
mkdir -p "$work"
. "$top/bench/lib.sh"
bench_inputs
run_dir

conversions() {
	echo "old database -> v4|$old|old.d"
	echo "v4 (its output) -> v4|$oldv4|old2.d"
	echo "v4 (its output) -> Callgrind|$oldv4|callgrind.out.old"
	echo "ovni -> v4 + trace.db|$ovni|ovni.d"
	echo "cc1plus (1 profile) -> v4|$cg|cc1plus.d"
	echo "cc1plus x 3 thread files -> v4|$cgthreads|cgthreads.d"
	echo "Callgrind generated (1 profile, 3 events) -> v4|$gen|gen.d"
}

# run J IN OUT: "wall read rest" seconds of one conversion at -jJ
run() {
	/usr/bin/python3 -c 'bytearray(256 << 20)'
	rm -rf "${run:?}/$3"
	# (IN: one path, or several: no spaces in BENCH_DIR)
	# shellcheck disable=SC2086
	/usr/bin/time -f '%e' -o "$run/time" "$bin" convert --verbose -j"$1" \
		-o "$run/$3" $2 </dev/null >/dev/null 2>"$run/err" ||
		{ echo "bench/jobs.sh: $2: failed" >&2; cat "$run/err" >&2; exit 1; }
	rm -rf "${run:?}/$3"
	phases=$(sed -n 's/^profconv: times (wall): [a-z ]* \([0-9.]*\) s, the rest of the output \([0-9.]*\) s$/\1 \2/p' "$run/err")
	echo "$(tail -n 1 "$run/time") ${phases:-0 0}"
}

: >"$run/jobs.samples"
r=1
while [ $r -le "$rounds" ]; do
	conversions | while IFS='|' read -r label in out; do
		echo "$label|1|$(run 1 "$in" "$out")" >>"$run/jobs.samples"
		echo "$label|$jobs|$(run "$jobs" "$in" "$out")" >>"$run/jobs.samples"
	done
	r=$((r + 1))
done

awk -F'|' -v N="$jobs" "$MEDIAN_AWK"'
{
	if (!($1 in seen)) { order[n++] = $1; seen[$1] = 1 }
	split($3, x, " ")
	k = $1 SUBSEP $2
	w[k] = w[k] " " x[1]; rd[k] = rd[k] " " x[2]; rs[k] = rs[k] " " x[3]
}
END {
	printf "%-30s %7s %7s %6s  %-13s %-13s %6s %6s %6s %6s\n", "conversion", "-j1 s", "-j" N " s", "ratio", "-j1 read/rest", "-j" N " read/rest", "s", "p", "16 c", "64 c"
	for (i = 0; i < n; i++) {
		c = order[i]
		a = median(w[c SUBSEP 1]); b = median(w[c SUBSEP N])
		p = N > 1 ? (a - b) * N / (N - 1) : 0; p = p < 0 ? 0 : p; s = a - p
		printf "%-30s %7.2f %7.2f %6.2f  %5.2f/%-7.2f %5.2f/%-7.2f %6.2f %6.2f %6.2f %6.2f\n", c, a, b, (a > 0 ? b / a : 0),
			median(rd[c SUBSEP 1]), median(rs[c SUBSEP 1]), median(rd[c SUBSEP N]), median(rs[c SUBSEP N]),
			s, p, s + p / 16, s + p / 64
	}
}' "$run/jobs.samples"
