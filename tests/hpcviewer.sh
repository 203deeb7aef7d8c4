#!/bin/sh
# hpcviewer's own data layer as the judge (issue "Identical in
# hpcviewer"): every input format's v4 output opens with an inclusive
# and an exclusive column shown and no error in any view (tree, flat,
# bottom-up, threads, plots); a v4 -> v4 copy of each real database shows
# the same in every view. The judge is ../shared/tools/hv_view.sh over
# hpcdata 8.4.4, set up by ../shared/tools/setup-hpcviewer-judge.sh (in
# $HPCVIEWER_JUDGE, default /tmp/hpcviewer-judge); without it these SKIP.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
J=${HPCVIEWER_JUDGE:-/tmp/hpcviewer-judge}
HV="$SHARED/tools/hv_view.sh"
HC="$SHARED/tools/hv_compare.py"
if [ ! -f "$J/judge.env" ] || [ ! -x "$HV" ] || [ ! -x /usr/bin/python3 ]; then
	if [ -x "$HV" ]; then
		skip "hpcviewer's data layer is not set up in $J (run $(cd "$SHARED/tools" && pwd)/setup-hpcviewer-judge.sh, or set HPCVIEWER_JUDGE)"
	else
		skip "hpcviewer's data layer as judge: needs the tools of ../shared beside the project"
	fi
	done_testing
	exit $?
fi
export HPCVIEWER_JUDGE="$J"
CG="$TD/callgrind"
L="$TD/hpctoolkit-legacy"
# an old database with its values only in experiment.xml (no metric-db
# files): the one profile they make has a non-empty id tuple, or
# hpcviewer's thread view and plots fail
mkdir "$tmp/inline" && cp "$L/tiny-2.0/experiment.xml" "$tmp/inline/"
set -- "callgrind small.main:$CG/small.main.out" "callgrind cachesim:$CG/prog.cachesim.out" \
	"DCPI db:$TD/dcpi/db" "ovni:$TD/ovni/good" "old 2.0:$L/tiny-2.0" \
	"old 4.0:$L/tiny-4.0" "old 2.0, inline values only:$tmp/inline" \
	"perf script:$TD/perf/thr.srcline.txt" "folded stacks:$TD/folded/thr.folded"
[ -d "$SHARED/ovni-data/v3-nosv-2t/ovni" ] && set -- "$@" "ovni nosv:$SHARED/ovni-data/v3-nosv-2t/ovni"
for c in "$@"; do
	name=${c%%:*} in=${c#*:}
	rm -rf "$tmp/o.d"
	if ! "$PROFCONV" convert -q -o "$tmp/o.d" "$in" 2>"$tmp/err"; then
		not_ok "$name: convert"; sed 's/^/# /' "$tmp/err"; continue
	fi
	"$HV" "$tmp/o.d" >"$tmp/view" 2>&1
	rc=$?
	errs=$(sed -n '/^== errors/,$p' "$tmp/view" | grep -vc '^== errors')
	incl=$(sed -n '/^== columns/,/^== thread columns/p' "$tmp/view" | grep -c '	inclusive	.*	shown$')
	excl=$(sed -n '/^== columns/,/^== thread columns/p' "$tmp/view" | grep -c '	exclusive	.*	shown$')
	if [ $rc -eq 0 ] && [ "$errs" -eq 0 ] && [ "$incl" -gt 0 ] && [ "$excl" -gt 0 ]; then
		ok "$name: hpcviewer opens it, $incl inclusive and $excl exclusive columns shown, no error in any view"
	else
		not_ok "$name: hpcviewer: exit $rc, $errs errors, $incl/$excl columns"
		sed -n '/^== errors/,$p' "$tmp/view" | head -5 | sed 's/^/# /'
	fi
done
# perf samples: hpcviewer's aggregate is the sum of the samples' periods
rm -rf "$tmp/o.d"
"$PROFCONV" convert -q -o "$tmp/o.d" "$TD/perf/thr.srcline.txt" && "$HV" "$tmp/o.d" >"$tmp/view" 2>&1
s=$(awk '/^[^ \t#]/ && $NF ~ /:$/ { s += $(NF - 1) } END { print s }' "$TD/perf/thr.srcline.txt")
check "perf script: hpcviewer's aggregate is the samples' periods ($s)" \
	grep -q "^Experiment Aggregate Metrics	$s	$s$" "$tmp/view"
# profconv diff: the three columns of each metric, [new-base] = [new] -
# [base] in the thread view of every context (tests/diff_v4.sh checks
# every view)
hv_diff() { # NAME BASE NEW: the columns and every thread row
	rm -rf "$tmp/d.d"
	"$PROFCONV" diff -q -o "$tmp/d.d" "$2" "$3" 2>"$tmp/err" &&
		"$HV" "$tmp/d.d" >"$tmp/view" 2>&1
	rc=$?
	res=$(awk -F'\t' '
		/^== / { sec = $0; next }
		sec == "== columns" && /\[new-base\]: Sum \([IE]\).*shown$/ { shown++ }
		sec == "== thread columns" { nm = $2; k = nm; sub(/ \[[a-z-]*\] \([IE]\)$/, "", k)
			sd = nm; sub(/.*\[/, "", sd); sub(/\].*/, "", sd); ie = substr(nm, length(nm) - 1, 1)
			col[k, sd, ie] = $1; stems[k] = 1 }
		sec == "== threads" && NF > 3 { for (k in stems) for (q = 0; q < 2; q++) {
			ie = q ? "E" : "I"; rows++
			b = $(col[k, "base", ie] + 2); nw = $(col[k, "new", ie] + 2); d = $(col[k, "new-base", ie] + 2)
			b = b == "-" ? 0 : b; nw = nw == "-" ? 0 : nw; d = d == "-" ? 0 : d
			e = nw - b - d; s = (nw < 0 ? -nw : nw) + (b < 0 ? -b : b) + 1
			if (e > 1e-9 * s || -e > 1e-9 * s) bad++ } }
		sec == "== errors" && NF { errs++ }
		END { printf "%d %d %d %d\n", shown, rows, bad, errs }' "$tmp/view")
	set -- "$1" $res
	if [ $rc -eq 0 ] && [ "$2" -ge 2 ] && [ "$3" -gt 100 ] && [ "$4" -eq 0 ] && [ "$5" -eq 0 ]; then
		ok "$1: hpcviewer shows [new-base] columns ($2), = [new] - [base] in all $3 thread values, no error"
	else
		not_ok "$1: hpcviewer: exit $rc, $2 delta columns, $4 of $3 thread values off, $5 errors"
		sed 's/^/# /' "$tmp/err" | head -3
	fi
}
hv_diff "diff of prog at two inputs (Callgrind)" "$CG/prog.default.out" "$CG/prog.n22.out"
check "diff in hpcviewer: the aggregate Ir 527,325 -> 1,238,014, +710,689" \
	grep -q '^Experiment Aggregate Metrics	527325	527325	1238014	1238014	710689	710689	' "$tmp/view"
if have_shared; then
	hv_diff "diff of two real databases (ping-pong, old and v4 hpcprof)" \
		"$SHARED/hpctoolkit-data/legacy-pipit-ping-pong" "$SHARED/hpctoolkit-data/v4-pipit-ping-pong"
	for db in "$SHARED"/hpctoolkit-data/v4-*; do
		dn=$(basename "$db")
		rm -rf "$tmp/c.d"
		"$PROFCONV" convert -q -o "$tmp/c.d" "$db" 2>"$tmp/err" &&
			/usr/bin/python3 "$HC" "$db" "$tmp/c.d" >"$tmp/cmp" 2>&1
		if [ $? -eq 0 ]; then ok "$dn: v4 -> v4 identical in hpcviewer ($(tail -1 "$tmp/cmp"))"
		else not_ok "$dn: v4 -> v4 in hpcviewer"; head -8 "$tmp/cmp" "$tmp/err" | sed 's/^/# /'; fi
	done
else
	skip "v4 -> v4 in hpcviewer: $NO_SHARED"
fi
done_testing
