#!/bin/sh
# The outputs beyond the peers (pprof, Chrome trace, folded stacks) of a
# large Callgrind file and a large ovni trace, in one run: the CPU time
# (user + system) of each conversion, the output's bytes, the CPU time
# of `cat` of those bytes and the ratio of the two; the v4 database and
# Callgrind outputs of the same inputs beside them, and the peak memory
# of each (GNU time). Pinned to one core, after memory is touched and
# freed (see bench/floor.sh), medians of ROUNDS rounds (default 3).
#   sh bench/outputs.sh BUILD_DIR
# Inputs, generated and kept in BENCH_DIR (default
# /tmp/profconv-bench-outputs): a Callgrind file of CG_FUNCS functions x
# 60 lines (default 60000: 85 MB, the cc1plus --dump-instr class) and
# an ovni trace of OVNI threads x events (default "16 6250000": 10^8
# events).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: sh bench/outputs.sh BUILD_DIR}/profconv
work=${BENCH_DIR:-/tmp/profconv-bench-outputs}
rounds=${ROUNDS:-3}
mkdir -p "$work"
. "$top/bench/lib.sh"

gen="$work/callgrind.out.gen-${CG_FUNCS:-60000}"
gen_cg_file "$gen" "${CG_FUNCS:-60000}"
set -- ${OVNI:-16 6250000}
ovni="$work/ovni-$1-$2"
gen_ovni_trace "$ovni" "$1" "$2"

conversions() {
	for o in prof.pb.gz prof.folded callgrind.out.x prof.d; do
		echo "Callgrind $(du -sh "$gen" | cut -f1)|$gen|$o"
	done
	for o in prof.pb.gz prof.folded trace.json callgrind.out.y ovni.d; do
		echo "ovni $(du -sh "$ovni" | cut -f1)|$ovni|$o"
	done
}

# run COMMAND...: "CPU-seconds peak-KiB", after touching and freeing
# 256 MiB
run() {
	measured '%U %S %M' "$@" >/dev/null
	awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$work/time"
}

: >"$work/samples"
r=1
while [ $r -le "$rounds" ]; do
	conversions | while IFS='|' read -r label in out; do
		rm -rf "${work:?}/$out"
		set -- $(run "$bin" convert -q -j1 -o "$work/$out" "$in")
		t=$1 rss=$2
		ob=$(bytes "$work/$out")
		if [ -d "$work/$out" ]; then
			set -- $(run sh -c "cat '$work/$out'/* '$work/$out'/*/* 2>/dev/null; true")
		else
			set -- $(run cat "$work/$out")
		fi
		echo "$label|$out|$t|$1|$ob|$rss" >>"$work/samples"
		rm -rf "${work:?}/$out"
	done
	r=$((r + 1))
done

echo "CPU seconds pinned to one core, medians of $rounds (peak RSS: the largest)"
echo "| input | output | bytes | CPU | cat of the output | x cat | peak |"
echo "|---|---|---|---|---|---|---|"
awk -F'|' "$MEDIAN_AWK"'
	{ k = $1 "|" $2; if (!(k in t)) order[n++] = k
	  t[k] = t[k] " " $3; c[k] = c[k] " " $4; b[k] = $5
	  if ($6 > m[k]) m[k] = $6 }
	END {
		for (i = 0; i < n; i++) {
			k = order[i]; split(k, p, "|")
			tm = median(t[k]); cm = median(c[k])
			printf "| %s | %s | %.1f MB | %.2f s | %.3f s | %s | %d MiB |\n",
				p[1], p[2], b[k] / 1e6, tm, cm,
				(cm >= 0.005 ? sprintf("%.0f", tm / cm) : "-"),
				m[k] / 1024
		}
	}' "$work/samples"
