#!/bin/sh
# DCPI benchmark: a generated profile database of NIMAGES images with
# NADDR sampled addresses each (default 1000 x 10000 = 10^7), converted
# to v4 and to Callgrind, as CPU-time ratios against `cat` of the same
# bytes in the same run. Usage: sh bench/dcpi.sh [BUILD_DIR] [NIMAGES]
# [NADDR]. Needs perl and GNU time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
ni=${2:-1000}
na=${3:-10000}
work=${BENCH_DIR:-/tmp/profconv-bench-dcpi}
db="$work/db-$ni-$na"
if [ ! -d "$db" ]; then
	mkdir -p "$db/201001011200/alpha1"
	perl "$top/bench/gen_dcpi.pl" "$db/201001011200/alpha1" "$ni" "$na"
fi
bytes=$(cat "$db"/*/*/* | wc -c)
echo "input: $ni images x $na addresses, $(echo "$bytes" | awk '{printf "%.1f", $1 / 1e6}') MB"
t() { /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; exit 1; }; awk '{printf "%.2f %d", $1 + $2, $3}' "$work/time"; }
set -- $(t sh -c "cat '$db'/*/*/* >/dev/null"); cat_s=$1
set -- $(t "$build/profconv" convert -q --force "$db" -o "$work/out.d"); v4_s=$1; v4_kb=$2
set -- $(t "$build/profconv" convert -q --force "$db" -o "$work/callgrind.out.dcpi"); cg_s=$1
awk -v b="$bytes" -v c="$cat_s" -v v="$v4_s" -v k="$v4_kb" -v g="$cg_s" 'BEGIN {
	printf "cat:               %6.2f s CPU\n", c
	printf "dcpi -> v4:        %6.2f s CPU  %6.1f MB/s  %.0f x cat  peak %d MB\n", v, b / 1e6 / (v ? v : 0.01), v / (c ? c : 0.01), k / 1024
	printf "dcpi -> callgrind: %6.2f s CPU  %6.1f MB/s  %.0f x cat\n", g, b / 1e6 / (g ? g : 0.01), g / (c ? c : 0.01)
}'
