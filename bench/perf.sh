#!/bin/sh
# perf script reading speed: a generated perf script text of MB
# megabytes (bench/gen_perf.pl; default 100) read by profconv (to folded
# stacks, and to a v4 database) and by FlameGraph's stackcollapse-perf.pl,
# in one run: CPU seconds, MB/s, the ratio (the target: profconv 20
# times faster), and the peaks. Then the peak at 1x and 10x the samples
# of a tenth of the file (memory bounded in the samples).
# Usage: [ROUNDS=3] sh bench/perf.sh [BUILD_DIR] [MB] (medians of the
# rounds). Needs perl, GNU time, and
# stackcollapse-perf.pl: FLAMEGRAPH=DIR of a clone of
# brendangregg/FlameGraph (else the mirror /work/.mirror's, else PATH).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
mb=${2:-100}
rounds=${ROUNDS:-3}
work=${BENCH_DIR:-/tmp/profconv-bench-perf}
mkdir -p "$work"
. "$top/bench/lib.sh"
sc=
if [ -n "${FLAMEGRAPH:-}" ]; then
	sc="$FLAMEGRAPH/stackcollapse-perf.pl"
elif git --git-dir=/work/.mirror/brendangregg+FlameGraph/repo show \
	HEAD:stackcollapse-perf.pl >"$work/stackcollapse-perf.pl" 2>/dev/null; then
	sc="$work/stackcollapse-perf.pl"
else
	sc=$(command -v stackcollapse-perf.pl) ||
		{ echo "$0: needs stackcollapse-perf.pl (FLAMEGRAPH=DIR)" >&2; exit 1; }
fi
# one input: FILE WHAT, the three readers of it
one() {
in=$1
bytes=$(bytes "$in")
echo "input: $2, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB of perf script text, $(grep -c ': $' "$in") samples"
set -- $(measured "%U %S %M" cat "$in"); cat_s=$(echo "$1 $2" | awk '{ print $1 + $2 }')
# ROUNDS rounds, the three readers in turn each round (the load moves
# them alike): the median CPU time of each, its largest peak
pf= v4= scs= pf_kb=0 v4_kb=0 sc_kb=0
for r in $(seq "$rounds"); do
	set -- $(measured "%U %S %M" "$build/profconv" convert -q --force "$in" -t folded -o "$work/out.folded")
	pf="$pf $(echo "$1 $2" | awk '{ print $1 + $2 }')"; pf_kb=$(($3 > pf_kb ? $3 : pf_kb))
	set -- $(measured "%U %S %M" "$build/profconv" convert -q --force "$in" -o "$work/out.d")
	v4="$v4 $(echo "$1 $2" | awk '{ print $1 + $2 }')"; v4_kb=$(($3 > v4_kb ? $3 : v4_kb))
	set -- $(measured "%U %S %M" perl "$sc" "$in")
	scs="$scs $(echo "$1 $2" | awk '{ print $1 + $2 }')"; sc_kb=$(($3 > sc_kb ? $3 : sc_kb))
done
med() { awk -v s="$1" "$MEDIAN_AWK"'BEGIN { print median(s) }'; }
pf_s=$(med "$pf") v4_s=$(med "$v4") sc_s=$(med "$scs")
echo "CPU s per round: profconv -> folded$pf; -> v4$v4; stackcollapse-perf.pl$scs"
awk -v b="$bytes" -v c="$cat_s" -v p="$pf_s" -v pk="$pf_kb" -v v="$v4_s" -v vk="$v4_kb" \
	-v s="$sc_s" -v sk="$sc_kb" 'BEGIN {
	printf "cat:                       %7.2f s CPU\n", c
	printf "profconv -> folded:        %7.2f s CPU  %6.1f MB/s  peak %4d MB\n", p, b / 1e6 / (p ? p : 0.01), pk / 1024
	printf "profconv -> v4:            %7.2f s CPU  %6.1f MB/s  peak %4d MB\n", v, b / 1e6 / (v ? v : 0.01), vk / 1024
	printf "stackcollapse-perf.pl:     %7.2f s CPU  %6.1f MB/s  peak %4d MB\n", s, b / 1e6 / (s ? s : 0.01), sk / 1024
	printf "profconv (folded) is %.1f times faster than stackcollapse-perf.pl\n", s / (p ? p : 0.01)
}'
}
gen="$work/perf-$mb.txt"
[ -f "$gen" ] || perl "$top/bench/gen_perf.pl" "$mb" >"$gen"
one "$gen" "generated (bench/gen_perf.pl)"
# the samples of a real recording (testdata/perf/gzip.txt: perf record
# -g of gzip) again and again: a program's stacks repeat
real="$work/gzip-$mb.txt"
if [ ! -f "$real" ]; then
	n=$((mb * 1000000 / $(bytes "$top/testdata/perf/gzip.txt") + 1))
	for i in $(seq "$n"); do cat "$top/testdata/perf/gzip.txt"; done >"$real"
fi
one "$real" "testdata/perf/gzip.txt repeated"
in=$gen
bytes=$(bytes "$in")
# memory bounded in the samples: the first tenth of the file, and ten
# copies of it (the same stacks, ten times the samples and trace)
# (whole samples: the part cut at the end left out)
head -c $((bytes / 10)) "$in" | awk 'BEGIN { RS = ""; ORS = "\n\n" } NR > 1 { print last } { last = $0 }' >"$work/tenth.txt"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$work/tenth.txt"; done >"$work/ten.txt"
set -- $(measured "%M" "$build/profconv" convert -q --force "$work/tenth.txt" -o "$work/t1.d"); k1=$1
set -- $(measured "%M" "$build/profconv" convert -q --force "$work/ten.txt" -o "$work/t10.d"); k10=$1
echo "peak, perf script -> v4: 1x the samples $((k1 / 1024)) MB, 10x $((k10 / 1024)) MB"
