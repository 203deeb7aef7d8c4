#!/bin/sh
# perf script reading speed: a generated perf script text of MB
# megabytes (bench/gen_perf.pl; default 100) read by profconv (to folded
# stacks, and to a v4 database) and by FlameGraph's stackcollapse-perf.pl,
# in one run: CPU seconds (user and system), page faults, MB/s, the ratio
# (the target: profconv 20 times faster), and the peaks. Then the peak at
# 1x and 10x the samples of a tenth of the file (memory bounded in the
# samples).
# Usage: [ROUNDS=3] [BEFORE=PROFCONV] [INSN=1] sh bench/perf.sh
# [BUILD_DIR] [MB] (medians of the rounds). BEFORE: another build's
# profconv (the commit before) read to folded in the same rounds, in
# turn with BUILD's. INSN=1: the instructions too (callgrind's totals of
# profconv -> folded, -j1, and of the perl script on the same file: both
# independent of the load, where CPU seconds on this shared VM are not;
# the perl script under callgrind takes minutes). Needs perl, GNU time,
# valgrind for INSN, and
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
# insn COMMAND...: the instructions it runs (callgrind's total, millions)
insn() {
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" \
		</dev/null >/dev/null 2>"$work/vg.err" ||
		{ echo "$0: valgrind $*: failed" >&2; cat "$work/vg.err" >&2; exit 1; }
	awk '/^(summary|totals):/ { printf "%.1f", $2 / 1e6; exit }' "$work/cg.out"
	rm -f "$work/cg.out"
}
med() { awk -v s="$1" "$MEDIAN_AWK"'BEGIN { print median(s) }'; }
max() { echo "$1" | tr ' ' '\n' | sort -n | tail -n 1; }
# cpu NAME COMMAND...: one run into NAME's lists (user, system, both,
# faults; its peak the largest)
cpu() {
	name=$1
	shift
	set -- $(measured "%U %S %M %R" "$@")
	eval "${name}_u=\"\${${name}_u:-} $1\" ${name}_s=\"\${${name}_s:-} $2\""
	eval "${name}_t=\"\${${name}_t:-} $(echo "$1 $2" | awk '{ print $1 + $2 }')\""
	eval "${name}_m=\"\${${name}_m:-} $3\" ${name}_f=\"\${${name}_f:-} $4\""
}
# line LABEL NAME: its medians and largest peak
line() {
	eval "u=\$${2}_u s=\$${2}_s t=\$${2}_t m=\$${2}_m f=\$${2}_f"
	awk -v l="$1" -v b="$bytes" -v u="$(med "$u")" -v s="$(med "$s")" \
		-v t="$(med "$t")" -v f="$(med "$f")" -v m="$(max "$m")" 'BEGIN {
		printf "%-26s %6.3f s CPU (user %.3f, sys %.3f) %7.1f MB/s  faults %6d  peak %4d MB\n",
			l ":", t, u, s, b / 1e6 / (t ? t : 0.01), f, m / 1024
	}'
}
# one input: FILE WHAT, the three readers of it (and BEFORE's)
one() {
in=$1
bytes=$(bytes "$in")
echo "input: $2, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB of perf script text, $(grep -c ': $' "$in") samples"
set -- $(measured "%U %S %M" cat "$in"); cat_s=$(echo "$1 $2" | awk '{ print $1 + $2 }')
# ROUNDS rounds, the readers in turn each round (the load moves them
# alike): the median CPU time of each, its largest peak
unset pf_u pf_s pf_t pf_m pf_f bf_u bf_s bf_t bf_m bf_f v4_u v4_s v4_t v4_m v4_f sc_u sc_s sc_t sc_m sc_f
for r in $(seq "$rounds"); do
	cpu pf "$build/profconv" convert -q --force "$in" -t folded -o "$work/out.folded"
	[ -z "${BEFORE:-}" ] ||
		cpu bf "$BEFORE" convert -q --force "$in" -t folded -o "$work/before.folded"
	cpu v4 "$build/profconv" convert -q --force "$in" -o "$work/out.d"
	cpu sc perl "$sc" "$in"
done
echo "CPU s per round: profconv -> folded$pf_t;${BEFORE:+ before -> folded$bf_t;} -> v4$v4_t; stackcollapse-perf.pl$sc_t"
printf '%-26s %6.3f s CPU\n' "cat:" "$cat_s"
line "profconv -> folded" pf
[ -z "${BEFORE:-}" ] || line "before -> folded" bf
line "profconv -> v4" v4
line "stackcollapse-perf.pl" sc
echo "$(med "$sc_t") $(med "$pf_t")" | awk '{ printf "profconv (folded) is %.1f times faster than stackcollapse-perf.pl in CPU\n", $1 / ($2 ? $2 : 0.01) }'
[ -z "${BEFORE:-}" ] ||
	echo "$(med "$sc_t") $(med "$bf_t")" | awk '{ printf "before (folded) is %.1f times faster in CPU\n", $1 / ($2 ? $2 : 0.01) }'
if [ -n "${INSN:-}" ]; then
	ip=$(insn "$build/profconv" convert -q -j1 --force "$in" -t folded -o "$work/out.folded")
	[ -z "${BEFORE:-}" ] ||
		ib=$(insn "$BEFORE" convert -q -j1 --force "$in" -t folded -o "$work/before.folded")
	is=$(insn perl "$sc" "$in")
	echo "instructions: profconv -> folded $ip M${BEFORE:+, before $ib M}, stackcollapse-perf.pl $is M"
	echo "$is $ip" | awk '{ printf "profconv (folded) is %.1f times fewer instructions than stackcollapse-perf.pl\n", $1 / $2 }'
	[ -z "${BEFORE:-}" ] ||
		echo "$is $ib" | awk '{ printf "before (folded) is %.1f times fewer\n", $1 / $2 }'
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC'), $rounds rounds, load average $load0 before"
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
