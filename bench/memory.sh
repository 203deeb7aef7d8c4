#!/bin/sh
# Memory: peak RSS (GNU time) of conversions at two input sizes, to show
# that profiles stream (the peak stays flat as the input grows). ovni
# traces of NTHREADS x 10^6 events (bench/gen_ovni.c) and old databases
# of NPROFILES x 500,000 contexts (bench/gen_legacy.c), each converted to
# v4 and to Callgrind, and the old databases' v4 outputs again to v4 and
# to Callgrind; and generated Callgrind files of NFUNCS x 60 lines
# (bench/gen_callgrind.c: 50,000 functions make 70 MB), one profile
# each, whose peak grows with the input (the calling-context tree does).
#   sh bench/memory.sh BUILD_DIR [OLD_PROFCONV]
# With OLD_PROFCONV (a build of another commit), each conversion runs
# with it too, and the outputs are compared byte for byte.
# SIZES="64 256 100 400 50000 357000 1000000 10000000" (ovni threads
# small, large; old-database profiles small, large; Callgrind functions
# small, large; events of each of 4 ovni threads short, long: the
# default: inputs of 1 and 4 GB, Callgrind files of 70 and 500 MB, and
# ovni threads of 15 and 150 MB). BENCH_DIR: where inputs and outputs go
# (the large ones take some 20 GB).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
new=${1:?usage: sh bench/memory.sh BUILD_DIR [OLD_PROFCONV]}/profconv
old=${2:-}
set -- ${SIZES:-64 256 100 400 50000 357000 1000000 10000000}
work=${BENCH_DIR:-/tmp/profconv-bench-memory}
mkdir -p "$work"
cc -O2 -o "$work/gen_ovni" "$top/bench/gen_ovni.c"
cc -std=c11 -O2 -o "$work/gen_legacy" "$top/bench/gen_legacy.c"
cc -O2 -o "$work/gen_callgrind" "$top/bench/gen_callgrind.c"
printf '%-34s %10s %10s %10s %8s %10s %8s %s\n' conversion input output \
	"peak MB" "CPU s" "old MB" "old s" identical
# conv LABEL IN OUT: the conversion with the new build (and the old,
# into old-OUT: a name of the same format), with the options in jobs
jobs=
conv() {
	old3="$(dirname "$3")/old-$(basename "$3")"
	rm -rf "$3" "$old3"
	sync
	/usr/bin/time -f '%U %S %M' -o "$work/t" "$new" convert $jobs -q -o "$3" "$2"
	set -- "$1" "$2" "$3" $(tail -1 "$work/t")
	cpu=$(echo "$4 $5" | awk '{ printf "%.1f", $1 + $2 }') mb=$(($6 / 1024))
	omb=- ocpu=- same=-
	if [ -n "$old" ]; then
		/usr/bin/time -f '%U %S %M' -o "$work/t" "$old" convert $jobs -q -o "$old3" "$2"
		set -- "$1" "$2" "$3" $(tail -1 "$work/t")
		ocpu=$(echo "$4 $5" | awk '{ printf "%.1f", $1 + $2 }') omb=$(($6 / 1024))
		same=no
		diff -r "$3" "$old3" >/dev/null && same=yes
		rm -rf "$old3"
	fi
	printf '%-34s %10s %10s %10s %8s %10s %8s %s\n' "$1" \
		"$(du -sh "$2" | cut -f1)" "$(du -sh "$3" | cut -f1)" "$mb" \
		"$cpu" "$omb" "$ocpu" "$same"
}
for n in "$1" "$2"; do
	tr="$work/ovni-$n"
	[ -d "$tr" ] || "$work/gen_ovni" "$tr" "$n" 1000000 >/dev/null
	conv "ovni $n threads x 10^6 -> v4" "$tr" "$work/ovni.d"
	conv "ovni $n threads x 10^6 -> Callgrind" "$tr" "$work/callgrind.out.ovni"
	rm -rf "$tr" "$work/ovni.d" "$work/callgrind.out.ovni"
done
# one thread's length: its trace spills to a file as it grows, at -j1
# and -j2 (a second reader) alike
for n in "$7" "$8"; do
	tr="$work/ovni-4x$n"
	[ -d "$tr" ] || "$work/gen_ovni" "$tr" 4 "$n" >/dev/null
	for jobs in -j1 -j2; do
		conv "ovni 4 threads x $n -> v4 $jobs" "$tr" "$work/ovni.d"
	done
	jobs=
	rm -rf "$tr" "$work/ovni.d"
done
for n in "$3" "$4"; do
	db="$work/old-$n"
	[ -d "$db" ] || "$work/gen_legacy" "$db" "$n" 500000 >/dev/null 2>&1
	conv "old db $n x 500,000 -> v4" "$db" "$work/old.d"
	rm -rf "$db"
	conv "  its v4 -> v4" "$work/old.d" "$work/old2.d"
	rm -rf "$work/old2.d"
	conv "  its v4 -> Callgrind" "$work/old.d" "$work/callgrind.out.old"
	rm -rf "$work/old.d" "$work/callgrind.out.old"
done
for n in "$5" "$6"; do
	cg="$work/callgrind.out.gen-$n"
	[ -s "$cg" ] || "$work/gen_callgrind" "$n" 60 >"$cg"
	conv "Callgrind $n functions -> v4" "$cg" "$work/cg.d"
	rm -rf "$cg" "$work/cg.d"
done
