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
	"old 4.0:$L/tiny-4.0" "old 2.0, inline values only:$tmp/inline"
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
if have_shared; then
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
