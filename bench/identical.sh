#!/bin/sh
# Outputs byte for byte: converts every fixture and every ../shared sample
# with two builds of profconv (the commit before a refactor, and after)
# into a v4 database and a Callgrind file, and compares outputs, exit
# statuses and messages. For data-flow refactors (streaming, threads,
# MPI), which must not change what is written.
#   sh bench/identical.sh OLD_PROFCONV NEW_PROFCONV [EXTRA_INPUT...]
# Extra inputs (the bench's generated ones) are compared the same way.
# Prints one line per difference and "N identical, N differ".
old=${1:?usage: identical.sh OLD_PROFCONV NEW_PROFCONV [INPUT...]}
new=${2:?usage: identical.sh OLD_PROFCONV NEW_PROFCONV [INPUT...]}
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$top/../shared}
work=$(mktemp -d "${TMPDIR:-/tmp}/identical.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
same=0 differ=0

inputs() {
	for f in "$top"/testdata/callgrind/*.out "$top"/testdata/callgrind/*.out.gz \
		"$top"/testdata/callgrind/*.out-0[0-9] "$top"/testdata/callgrind/*.out.1; do
		[ -f "$f" ] && echo "$f"
	done
	for d in "$top"/testdata/dcpi/db "$top"/testdata/dcpi/*.dcpicat \
		"$top"/testdata/hpctoolkit-legacy/tiny-* \
		"$top"/testdata/ovni/good/* "$top"/testdata/ovni/l0/* \
		"$top"/testdata/ovni/l1/* "$top"/testdata/ovni/marks/* \
		"$top"/testdata/ovni/more/* "$top"/testdata/ovni/multi/* \
		"$shared"/hpctoolkit-data/* "$shared"/ovni-data/*; do
		[ -e "$d" ] || continue
		case $d in *.md | *.tsv | *README*) continue ;; esac
		echo "$d"
	done
}

# run BIN OUT INPUT: the conversion's exit status and messages (the
# temporary's name and the run's own output path made neutral)
run() {
	"$1" convert -q -o "$2" "$3" >"$2.log" 2>&1
	echo "exit $?" >>"$2.log"
	sed -i "s|$work/[ab]|OUT|g; s|\.tmp-[A-Za-z0-9]*|.tmp|g" "$2.log"
}

compare() { # INPUT
	i=$((i + 1))
	# the old build's v4 database of it, read back by both: profconv's
	# own databases (no elided contexts) stream profile by profile
	rm -rf "$work/v4.d"
	"$old" convert -q -o "$work/v4.d" "$1" >/dev/null 2>&1 &&
		compare_to "$work/v4.d" d callgrind
	compare_to "$1" d callgrind
}

compare_to() { # INPUT TYPE...
	in=$1
	shift
	for t in "$@"; do
		rm -rf "$work/a" "$work/b"
		mkdir "$work/a" "$work/b"
		run "$old" "$work/a/out.$t" "$in"
		run "$new" "$work/b/out.$t" "$in"
		if diff -r "$work/a" "$work/b" >"$work/diff" 2>&1; then
			same=$((same + 1))
		else
			differ=$((differ + 1))
			echo "DIFFER $in -> $t: $(head -3 "$work/diff" | tr '\n' ' ')"
		fi
	done
}

i=0
for f in $(inputs) "$@"; do
	compare "$f"
done
echo "$same identical, $differ differ"
[ "$differ" -eq 0 ]
