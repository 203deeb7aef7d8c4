#!/bin/sh
# Old-HPCToolkit-database benchmark: a generated experiment.xml 4.0 +
# HPCPROF-profile.db database (gen_legacy.c: NPROFILES threads x about
# NCONTEXTS contexts, default 100 x 500000, about 1.1 GB) migrated to
# v4 with `profconv convert`, as CPU time (user + sys) and peak RSS
# against `cat` of the same input bytes and against a v4 -> v4
# conversion of the result (the same model through the v4 reader and
# writer). Usage: sh legacy.sh BUILD_DIR [NPROFILES] [NCONTEXTS].
# Needs cc and GNU time. BENCH_DIR: where the (cached) input and the
# outputs go.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: sh legacy.sh BUILD_DIR [NPROFILES] [NCONTEXTS]}
np=${2:-100}
nc=${3:-500000}
work=${BENCH_DIR:-/tmp/profconv-bench-legacy}
db="$work/db-$np-$nc"
mkdir -p "$work"
if [ ! -f "$db/done" ]; then
	cc -std=c11 -O2 -o "$work/gen_legacy" "$here/gen_legacy.c"
	rm -rf "$db"
	/usr/bin/time -f "%e s wall, %M kB" -o "$work/gen.time" \
		"$work/gen_legacy" "$db" "$np" "$nc" 2>"$work/gen.log"
	echo "generated: $(cat "$work/gen.log") in $(cat "$work/gen.time")"
	mv "$work/gen.log" "$db/done"
fi
values=$(sed -n 's/.* \([0-9]*\) values$/\1/p' "$db/done")
bytes=$(cat "$db"/experiment.xml "$db"/*.db | wc -c)
pdb=$(wc -c <"$db/profile.db")
echo "input: $np profiles x $(sed -n 's/.* \([0-9]*\) contexts.*/\1/p' "$db/done") contexts, $values values; $(echo "$bytes $pdb" | awk '{printf "%.1f MB (profile.db %.1f MB)", $1 / 1e6, $2 / 1e6}')"
# user+sys CPU seconds, wall seconds, peak RSS kB
t() { /usr/bin/time -f "%U %S %e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
	{ cat "$work/err"; exit 1; }; awk '{printf "%.2f %.2f %d", $1 + $2, $3, $4}' "$work/time"; }
cat "$db"/experiment.xml "$db"/*.db >/dev/null # into the page cache
# cat ten times (one is below GNU time's 10 ms resolution for small inputs)
set -- $(t sh -c "for i in 0 1 2 3 4 5 6 7 8 9; do cat '$db'/experiment.xml '$db'/*.db; done")
cat_s=$(echo "$1" | awk '{printf "%.3f", $1 / 10}')
set -- $(t "$build/profconv" convert -q --force "$db" -o "$work/new.d"); mig_s=$1; mig_w=$2; mig_kb=$3
set -- $(t "$build/profconv" convert -q --force "$work/new.d" -o "$work/new2.d"); v4_s=$1; v4_w=$2; v4_kb=$3
new=$(cat "$work"/new.d/*.db | wc -c)
new2=$(cat "$work"/new2.d/*.db | wc -c)
awk -v b="$bytes" -v n="$new" -v n2="$new2" -v vals="$values" -v c="$cat_s" \
    -v m="$mig_s" -v mw="$mig_w" -v mk="$mig_kb" -v v="$v4_s" -v vw="$v4_w" -v vk="$v4_kb" 'BEGIN {
	z = 0.01
	printf "cat:               %7.3f s CPU  %7.1f MB/s\n", c, b / 1e6 / (c > z ? c : z)
	printf "migration old->v4: %7.2f s CPU (%.2f s wall)  %6.1f MB/s  %5.2f M values/s  %5.1f x cat  %4.2f x v4->v4\n", m, mw, b / 1e6 / (m > z ? m : z), vals / 1e6 / (m > z ? m : z), m / (c > z ? c : z), m / (v > z ? v : z)
	printf "                   peak RSS %6d MB, wrote %7.1f MB (RSS/output %.2f, RSS/input %.2f)\n", mk / 1024, n / 1e6, mk * 1024 / n, mk * 1024 / b
	printf "v4 -> v4:          %7.2f s CPU (%.2f s wall)  %6.1f MB/s  %5.1f x cat\n", v, vw, n / 1e6 / (v > z ? v : z), v / (c > z ? c : z)
	printf "                   peak RSS %6d MB, wrote %7.1f MB (RSS/output %.2f)\n", vk / 1024, n2 / 1e6, vk * 1024 / n2
}'
