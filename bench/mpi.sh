#!/bin/sh
# profconv-mpi's strong scaling, in one run: the serial profconv (-j1)
# and `mpirun -np N profconv-mpi` (-j1 per rank) for N in NPS (default
# "1 2 4") on an ovni trace of OVNI threads x events (default "256
# 3906250": 10^9 events) and an old database of OLD threads x contexts
# (default "4096 2000"), to v4 databases: wall and CPU seconds (all
# ranks), the largest rank's peak memory, rank 0's phases (--verbose:
# reading its share, receiving the others', the rest of the output),
# and that every output is the serial one byte for byte. Medians of
# ROUNDS (default 1; the inputs are large).
#   sh bench/mpi.sh BUILD_DIR
# Inputs are generated once into BENCH_DIR (default
# /tmp/profconv-bench-mpi). This machine has 2 cores: -np 4 runs
# oversubscribed, and its figures are for the design's model, not for
# speed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: sh bench/mpi.sh BUILD_DIR}
bin=$build/profconv
mpi=$build/profconv-mpi
[ -x "$mpi" ] || { echo "bench/mpi.sh: no $mpi (configure found no MPI)" >&2; exit 1; }
work=${BENCH_DIR:-/tmp/profconv-bench-mpi}
rounds=${ROUNDS:-1}
nps=${NPS:-1 2 4}
mkdir -p "$work"
. "$top/bench/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl="self,vader" OMPI_MCA_btl_vader_single_copy_mechanism=none

set -- ${OVNI:-256 3906250}
ovni="$work/ovni-$1-$2"
if [ ! -d "$ovni" ]; then
	cc -O2 -o "$work/gen_ovni" "$top/bench/gen_ovni.c"
	"$work/gen_ovni" "$ovni" "$1" "$2" >/dev/null
fi
set -- ${OLD:-4096 2000}
old="$work/old-$1-$2"
if [ ! -d "$old" ]; then
	cc -std=c11 -O2 -o "$work/gen_legacy" "$top/bench/gen_legacy.c"
	"$work/gen_legacy" "$old" "$1" "$2" >/dev/null 2>&1
fi

# timed LABEL COMMAND...: "wall cpu" of the command (children included)
timed() {
	/usr/bin/python3 -c 'bytearray(256 << 20)'
	/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" </dev/null >/dev/null 2>"$work/err" ||
		{ echo "bench/mpi.sh: $*: failed" >&2; cat "$work/err" >&2; exit 1; }
	awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$work/time"
}
phases() { # rank 0's --verbose line: "read recv rest" (-np 1: no recv)
	sed -n -e 's/.*reading its share \([0-9.]*\) s, the other ranks.* profiles \([0-9.]*\) s, the rest of the output \([0-9.]*\) s.*/\1 \2 \3/p' \
		-e 's/.*times (wall): reading[a-z ]* \([0-9.]*\) s, the rest of the output \([0-9.]*\) s.*/\1 0 \2/p' "$work/err" | head -1
}

: >"$work/samples"
for r in $(seq "$rounds"); do
	for in in "$ovni" "$old"; do
		label=$(basename "$in")
		rm -rf "$work/ser.d"
		set -- $(timed "$bin" convert -q -j1 -o "$work/ser.d" "$in")
		rss=$(/usr/bin/time -f %M "$bin" convert -q -j1 --force -o "$work/ser.d" "$in" 2>&1 >/dev/null | tail -1)
		echo "$label|serial|$1|$2|$rss|- - -|same" >>"$work/samples"
		for np in $nps; do
			rm -rf "$work/mpi.d"
			set -- $(timed mpirun --oversubscribe -np "$np" "$mpi" convert --verbose -j1 -o "$work/mpi.d" "$in")
			ph=$(phases)
			same=same
			diff -r "$work/ser.d" "$work/mpi.d" >/dev/null || same=DIFFERS
			# every rank's peak, the largest kept
			rm -rf "$work/mpi.d" "$work"/rss.*
			mpirun --oversubscribe -np "$np" sh -c \
				'/usr/bin/time -f %M -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' \
				"$work" "$mpi" convert -q -j1 -o "$work/mpi.d" "$in" >/dev/null 2>&1
			rss=$(cat "$work"/rss.* | sort -n | tail -1)
			echo "$label|np $np|$1|$2|$rss|${ph:-- - -}|$same" >>"$work/samples"
		done
	done
done

echo "wall and CPU seconds (CPU of every rank), medians of $rounds; peak: the largest rank's"
echo "| input | run | wall | CPU | peak | rank 0: read / others' / rest | output |"
echo "|---|---|---|---|---|---|---|"
awk -F'|' "$MEDIAN_AWK"'
	{ k = $1 "|" $2; if (!(k in w)) order[n++] = k
	  w[k] = w[k] " " $3; c[k] = c[k] " " $4; m[k] = $5; ph[k] = $6; s[k] = $7 }
	END {
		for (i = 0; i < n; i++) {
			k = order[i]; split(k, p, "|"); split(ph[k], q, " ")
			printf "| %s | %s | %.2f s | %.2f s | %d MiB | %s / %s / %s | %s |\n",
				p[1], p[2], median(w[k]), median(c[k]), m[k] / 1024,
				q[1], q[2], q[3], s[k]
		}
	}' "$work/samples"
