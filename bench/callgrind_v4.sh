#!/bin/sh
# Callgrind to v4, the issue's three targets in one run (issue 60, item
# 3): on the cc1plus fixture and a generated file of CG_FUNCS functions
# (default 50000: 70 MB), the conversion's CPU time (user + system,
# median of ROUNDS, default 3, pinned to one core at -j1), peak RSS and
# instructions (callgrind's total, once; INSN=0 leaves them out,
# INSN=small measures them on the cc1plus fixture only: valgrind takes
# some 30 minutes on the 70 MB file at a load of 16) with
# its phases (parse, tree, rounding, values sorted, v4 writer, the
# output's validation: callgrind_annotate's inclusive counts), the
# parse's speed in MB of input per CPU second (the CPU time times the
# parse's share of the instructions), and the peers in the same rounds:
# callgrind_annotate and KCachegrind's load (headless; bench/lib.sh's
# kc). With OLD_BUILD, that build's conversion is measured in the same
# rounds too (before and after a change). With MAX_CONTEXTS=N, the new
# build's conversion with --max-contexts=N too (row "new-mcN"): the tree
# the bound N gives against the default one (issue 58 item 4 lays a
# small input's tree out whole, up to a 64 MiB database); the database's
# size of each conversion is printed under the table.
#   sh bench/callgrind_v4.sh BUILD_DIR [OLD_BUILD_DIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: sh bench/callgrind_v4.sh BUILD_DIR [OLD_BUILD_DIR]}/profconv
oldbin=${2:+$2/profconv}
work=${BENCH_DIR:-/tmp/profconv-bench-floor}
rounds=${ROUNDS:-3}
mkdir -p "$work"
. "$top/bench/lib.sh"
cg="$work/cc1plus.out"
[ -s "$cg" ] || gzip -dc "$top/testdata/callgrind/cc1plus.out.gz" >"$cg"
gen="$work/callgrind.out.gen-${CG_FUNCS:-50000}"
gen_cg_file "$gen" "${CG_FUNCS:-50000}"
run_dir

# label|profconv|its options
builds() {
	echo "new|$bin|"
	[ -z "${MAX_CONTEXTS:-}" ] ||
		echo "new-mc$MAX_CONTEXTS|$bin|--max-contexts=$MAX_CONTEXTS"
	[ -z "$oldbin" ] || echo "old|$oldbin|"
}

# cpu COMMAND...: "CPU-SECONDS PEAK-KB"
cpu() {
	set -- $(measured '%U %S %M' "$@")
	awk -v u="$1" -v s="$2" -v m="$3" 'BEGIN { printf "%.3f %d\n", u + s, m }'
}

# phases CGOUT: "total parse tree round sort write check" (millions)
phases() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | awk '
	/PROGRAM TOTALS/ { x = $1; gsub(",", "", x); tot = x }
	/:[^ ]+ / || /:[^ ]+$/ {
		x = $1; gsub(",", "", x)
		for (i = 2; i <= NF; i++)
			if ($i ~ /:[A-Za-z_]/) {
				n = $i; sub(/.*:/, "", n); sub(/\..*/, "", n)
				if (!(n in v)) v[n] = x
				break
			}
	}
	END {
		printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", tot / 1e6,
			(v["cg_read"] - v["finish_part"] - v["cg_finish_part"]) / 1e6,
			v["pc_cg_expand"] / 1e6, v["pc_cg_round"] / 1e6,
			v["pc_values_finish"] / 1e6,
			(v["hpc_write"] - v["pc_check_db"]) / 1e6,
			v["pc_check_db"] / 1e6
	}'
}

: >"$run/samples"
: >"$run/sizes"
r=1
while [ $r -le "$rounds" ]; do
	for in in "$cg" "$gen"; do
		name=$(basename "$in")
		builds | while IFS='|' read -r b exe opt; do
			rm -rf "$run/out.d"
			set -- $(cpu "$exe" convert -q -j1 $opt -o "$run/out.d" "$in")
			echo "$b|$name|$1|$2" >>"$run/samples"
			[ $r != 1 ] || echo "$b $name: database $(bytes "$run/out.d") bytes" >>"$run/sizes"
			rm -rf "$run/out.d"
			if [ $r = 1 ] && [ "${INSN:-1}" != 0 ] &&
				{ [ "${INSN:-1}" != small ] || [ "$in" = "$cg" ]; }; then
				valgrind --tool=callgrind --callgrind-out-file="$run/cg.out" \
					"$exe" convert -q -j1 $opt -o "$run/out.d" "$in" \
					</dev/null >/dev/null 2>"$run/vg.err" ||
					{ cat "$run/vg.err" >&2; exit 1; }
				echo "insn|$b|$name|$(phases "$run/cg.out" | tr ' ' '|')" >>"$run/samples"
				rm -rf "$run/out.d" "$run/cg.out"
			fi
		done
		if [ "${ANNOTATE:-1}" != 0 ]; then
			set -- $(cpu callgrind_annotate "$in")
			echo "callgrind_annotate|$name|$1|$2" >>"$run/samples"
		fi
		if [ "${KCACHEGRIND:-1}" != 0 ] && command -v kcachegrind >/dev/null; then
			[ -s "$run/tiny.out" ] ||
				printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n3 10\n' >"$run/tiny.out"
			base=$(kc "$run/tiny.out")
			echo "KCachegrind|$name|$(echo "$(kc "$in") $base" | awk '{print $1 - $2}')|0" >>"$run/samples"
		fi
	done
	r=$((r + 1))
done

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
echo "commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC'), $rounds rounds, load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "inputs: $(basename "$cg") $(bytes "$cg") bytes, $(basename "$gen") $(bytes "$gen") bytes"
sizes="$(basename "$cg")=$(bytes "$cg") $(basename "$gen")=$(bytes "$gen")"
awk -F'|' -v sizes="$sizes" "$MEDIAN_AWK"'
BEGIN { n = split(sizes, z, " "); for (i = 1; i <= n; i++) { split(z[i], kv, "="); mb[kv[1]] = kv[2] / 1e6 } }
$1 == "insn" { ins[$2 "|" $3] = $0; next }
{
	k = $1 "|" $2
	if (!(k in t)) order[no++] = k
	t[k] = t[k] " " $3; m[k] = m[k] " " $4
}
END {
	printf "%-34s %8s %8s %8s %8s %6s %6s %6s %6s %6s %6s %9s\n", "run", "CPU s", "peak MB",
		"Minstr", "parse", "tree", "round", "sort", "write", "check", "parse MB/s", ""
	for (i = 0; i < no; i++) {
		k = order[i]; split(k, kk, "|")
		c = median(t[k]); pk = median(m[k]) / 1024
		line = sprintf("%-34s %8.2f %8.1f", kk[1] " " kk[2], c, pk)
		if (k in ins) {
			split(ins[k], f, "|")
			rate = (f[4] > 0 && c > 0) ? mb[kk[2]] / (c * f[5] / f[4]) : 0
			line = line sprintf(" %8d %6d %6d %6d %6d %6d %6d %9.1f", f[4], f[5], f[6], f[7], f[8], f[9], f[10], rate)
		}
		print line
	}
}' "$run/samples"
cat "$run/sizes"
