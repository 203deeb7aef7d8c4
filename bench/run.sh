#!/bin/sh
# Benchmarks, as CPU-time (user + system) ratios against baselines run on
# the same input in the same run (never part of `make check`):
#   callgrind -> v4:  wc -l, cat, profconv convert, callgrind_annotate,
#   KCachegrind's load (headless; its CPU time minus that of loading a
#   one-line file; skipped if kcachegrind is not installed or KCACHEGRIND=0)
#   v4 -> callgrind and v4 -> v4, on the database just written: cat of
#   its files, and the two conversions
# Usage: sh bench/run.sh [BUILD_DIR] [NFUNCS] [LINES_PER_FUNC]
# Needs GNU time (/usr/bin/time) for peak memory. ANNOTATE=0 skips
# callgrind_annotate (about 1.2 MB/s: minutes on the default input).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
nf=${2:-200000}
nl=${3:-60}
work=${BENCH_DIR:-/tmp/profconv-bench}
mkdir -p "$work"
cc -O2 -o "$work/gen_callgrind" "$top/bench/gen_callgrind.c"
in="$work/callgrind.out.bench"
[ -s "$in" ] || "$work/gen_callgrind" "$nf" "$nl" >"$in"
size=$(wc -c <"$in")
mb=$(echo "$size" | awk '{printf "%.1f", $1 / 1048576}')
echo "input: $in, $mb MiB, $(wc -l <"$in") lines"
cat "$in" >/dev/null # warm the page cache

t() { # command...: prints CPU seconds (user + system) and peak KiB
	/usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
		cat "$work/stderr"; exit 1; }
	read -r u s kb <"$work/time"
	echo "$(echo "$u $s" | awk '{print $1 + $2}') $kb"
}
. "$top/bench/lib.sh"
set -- $(t wc -l "$in"); wc_s=$1
set -- $(t cat "$in"); cat_s=$1
rm -rf "$work/out.d"
set -- $(t "$build/profconv" convert -q -o "$work/out.d" "$in"); pc_s=$1; pc_kb=$2
dbsize=$(du -sb "$work/out.d" | cut -f1)
"$build/profconv" check "$work/out.d"
dbmb=$(echo "$dbsize" | awk '{printf "%.1f", $1 / 1048576}')
cat "$work"/out.d/*.db >/dev/null
set -- $(t sh -c "cat '$work'/out.d/*.db"); dbcat_s=$1
rm -f "$work/callgrind.out.back"
set -- $(t "$build/profconv" convert -q -o "$work/callgrind.out.back" "$work/out.d"); back_s=$1; back_kb=$2
rm -rf "$work/out2.d"
set -- $(t "$build/profconv" convert -q -o "$work/out2.d" "$work/out.d"); v4v4_s=$1; v4v4_kb=$2
if [ "${ANNOTATE:-1}" != 0 ]; then
	set -- $(t callgrind_annotate "$in"); ca_s=$1
else
	ca_s=nan
fi
kc_s=nan
if [ "${KCACHEGRIND:-1}" != 0 ] && command -v kcachegrind >/dev/null; then
	printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n3 10\n' >"$work/tiny.out"
	kc_s=$(echo "$(kc "$in") $(kc "$work/tiny.out")" | awk '{print $1 - $2}')
fi
awk -v mb="$mb" -v wc="$wc_s" -v cat="$cat_s" -v pc="$pc_s" -v kb="$pc_kb" \
    -v db="$dbsize" -v ca="$ca_s" -v dbmb="$dbmb" -v dbcat="$dbcat_s" \
    -v back="$back_s" -v backkb="$back_kb" -v v4="$v4v4_s" -v v4kb="$v4v4_kb" \
    -v kc="$kc_s" 'BEGIN {
	print "CPU time (user + system), one run:"
	printf "wc -l                 %8.2f s\n", wc
	printf "cat                   %8.2f s\n", cat
	printf "profconv convert (v4) %8.2f s  %7.1f MiB/s  peak %.0f MiB\n", pc, mb / pc, kb / 1024
	printf "database written      %8.0f MiB (peak memory / database = %.2f)\n", db / 1048576, kb * 1024 / db
	printf "convert / wc -l       %8.1f x\n", pc / (wc > 0 ? wc : 0.01)
	printf "convert / cat         %8.1f x\n", pc / (cat > 0 ? cat : 0.01)
	if (ca != "nan") printf "callgrind_annotate    %8.2f s  (%.1f MiB/s); profconv is %.2f x faster\n", ca, mb / ca, ca / pc
	if (kc != "nan") printf "KCachegrind load      %8.2f s  (%.1f MiB/s); profconv is %.2f x faster\n", kc, mb / kc, kc / pc
	printf "v4 database input     %8.0f MiB; cat of its files %.2f s\n", dbmb, dbcat
	printf "v4 -> callgrind       %8.2f s  %7.1f MiB/s  peak %.0f MiB  (%.1f x cat)\n", back, dbmb / back, backkb / 1024, back / (dbcat > 0 ? dbcat : 0.01)
	printf "v4 -> v4              %8.2f s  %7.1f MiB/s  peak %.0f MiB  (%.1f x cat)\n", v4, dbmb / v4, v4kb / 1024, v4 / (dbcat > 0 ? dbcat : 0.01)
}'
