#!/bin/sh
# profconv diff's v4 database as hpcviewer shows it (issue 58, item 5):
# [new-base] = [new] - [base] in every cell, inclusive and exclusive, of
# every context, line contexts included. hpcviewer (hpcdata 8.4.4) does
# not show a line's stored inclusive value: it reduces it by each call
# made from the line in turn, keeping no value below 0 (see
# exporters/hpctoolkit_lines.c), so a line's own cost in [new-base] is
# right only where the line makes no call. Checked twice: on the
# database as profconv's reader reads it, with hpcviewer's reduction
# done here (tree and thread views), and by hpcviewer's own data layer
# (../shared/tools/hv_view.sh: tree, flat, bottom-up and thread views)
# where it is set up.
. "$(dirname "$0")/lib.sh"
CG="$TD/callgrind"
J=${HPCVIEWER_JUDGE:-/tmp/hpcviewer-judge}
HV="$SHARED/tools/hv_view.sh"

# shown DUMP: every context's inclusive and exclusive value of every
# metric as hpcviewer shows it, from `profconv dump` of a database; a
# line's inclusive value reduced by each call below it, in order
# (HierarchicalMetric.reduce: no value where either is none; none where
# the line's is not above the call's; else the difference). Then
# [new-base] against [new] - [base], cell by cell: prints the cells
# compared and those that differ (the first few too).
shown() {
	awk '
		function red(v, s) { return s == 0 ? v : v == 0 ? s : v <= s ? 0 : v - s }
		/^[a-z]+ [0-9]+$/ { sec = $1; next }
		sec == "metrics" { nm = $0; sub(/^[^"]*"/, "", nm); sub(/".*/, "", nm)
			id = substr($1, 2); stem[id] = nm; sub(/ \[[a-z-]*\]$/, "", stem[id])
			side[id] = nm; sub(/.*\[/, "", side[id]); sub(/\]$/, "", side[id])
			stems[stem[id]] = 1; next }
		sec == "contexts" { c = substr($1, 2); p = $2; sub(/^parent=c/, "", p)
			kind[c] = $4; nc = c + 1
			if ($4 == "function" && kind[p] == "line") kids[p] = kids[p] " " c
			next }
		sec == "scoped" { split($3, q, "."); m = substr(q[1], 2)
			k = $1 SUBSEP substr($2, 2) SUBSEP stem[m] SUBSEP side[m]
			if (q[2] == "execution") inc[k] = $4
			else if (q[2] == "lex_aware") exc[k] = $4
			prof[$1] = 1 }
		END {
			for (pr in prof) for (c = 1; c < nc; c++) for (s in stems) {
				split("base new new-base", sd, " ")
				for (i = 1; i <= 3; i++) {
					k = pr SUBSEP c SUBSEP s SUBSEP sd[i]; v = inc[k] + 0
					nk = split(kids[c], kid, " ")
					for (j = 1; j <= nk; j++)
						v = red(v, inc[pr SUBSEP kid[j] SUBSEP s SUBSEP sd[i]] + 0)
					I[i] = v; E[i] = exc[k] + 0
				}
				for (t = 0; t < 2; t++) {
					b = t ? E[1] : I[1]; n = t ? E[2] : I[2]; d = t ? E[3] : I[3]
					cells++; e = n - b - d; a = (n < 0 ? -n : n) + (b < 0 ? -b : b) + 1
					if (e > 1e-9 * a || -e > 1e-9 * a) {
						if (++bad <= 5) printf "%s c%d %s (%s): base %s new %s new-base %s\n",
							pr, c, s, t ? "E" : "I", b, n, d
					}
				}
			}
			printf "%d cells, %d differ\n", cells, bad
		}' "$1"
}

# hv_cells VIEW: the same check on hv_view.sh output: every row of the
# tree, flat, bottom-up and thread views ("-" reads as 0)
hv_cells() {
	awk -F'\t' '
		function col(name, n,   s, d) { s = name; sub(/ \[(base|new|new-base)\].*$/, "", s)
			d = name; sub(/^.* \[/, "", d); sub(/\].*$/, "", d)
			x = name; sub(/^.*\]/, "", x); return s x SUBSEP d }
		function cell(ib, in_, id,   b, n, d, e, a) {
			b = $ib; n = $in_; d = $id
			b = b == "-" ? 0 : b; n = n == "-" ? 0 : n; d = d == "-" ? 0 : d
			cells[sec]++; e = n - b - d; a = (n < 0 ? -n : n) + (b < 0 ? -b : b) + 1
			if (e > 1e-9 * a || -e > 1e-9 * a) { bad[sec]++
				if (++nbad <= 5) printf "%s: %s: %s: base %s new %s new-base %s\n", sec, $1, s, b, n, d }
		}
		/^== / { sec = substr($0, 4); next }
		sec == "columns" && $2 ~ / \[(base|new|new-base)\]/ { k = col($2); tc[k] = $1
			split(k, q, SUBSEP); keys[q[1]] = 1; next }
		sec == "thread columns" && $2 ~ / \[(base|new|new-base)\]/ { k = col($2); hc[k] = $1
			split(k, q, SUBSEP); hkeys[q[1]] = 1; next }
		sec == "tree" || sec == "flat" || sec == "bottom-up" || sec == "threads" {
			if (sec == "threads") {
				for (s in hkeys) cell(hc[s, "base"] + 2, hc[s, "new"] + 2, hc[s, "new-base"] + 2)
			} else {
				for (s in keys) cell(tc[s, "base"] + 1, tc[s, "new"] + 1, tc[s, "new-base"] + 1)
			}
		}
		END { for (s in cells) { printf "%s %d cells, %d differ; ", s, cells[s], bad[s]; all += cells[s]; nb += bad[s] }
			printf "\n%d cells, %d differ\n", all, nb }' "$1"
}

# cells_ok OUT MIN: the last line of shown/hv_cells says MIN cells or
# more, none differing
cells_ok() {
	tail -1 "$1" | awk -v min="$2" '{ ok = $1 >= min && $3 == 0 } END { exit !ok }' || {
		cat "$1"; return 1; }
}

# the fixture pair made for it: lines that make calls and have their
# own cost in one run only, in both, or none (testdata/callgrind/
# lines.base.out tells which)
"$PROFCONV" diff -q "$CG/lines.base.out" "$CG/lines.new.out" -o "$tmp/l.d"
"$PROFCONV" dump "$tmp/l.d" >"$tmp/l.dump"
shown "$tmp/l.dump" >"$tmp/l.shown"
check "lines pair: [new-base] = [new] - [base] in every cell hpcviewer derives ($(tail -1 "$tmp/l.shown"))" \
	cells_ok "$tmp/l.shown" 80
# each function's values as before: the line contexts of a call are
# summed as one by every reader but hpcviewer
"$PROFCONV" check --values "$tmp/l.d" >"$tmp/l.vals"
check "lines pair: main's exclusive Ir 18 -> 19 (+1), inclusive 291 -> 237 (-54); f's 3 -> 0" \
	sh -c "grep -q '^function	Ir \\[base\\]	main	18\$' '$tmp/l.vals' &&
		grep -q '^function	Ir \\[new-base\\]	main	1\$' '$tmp/l.vals' &&
		grep -q '^inclusive	Ir \\[new\\]	main	237\$' '$tmp/l.vals' &&
		grep -q '^inclusive	Ir \\[new-base\\]	main	-54\$' '$tmp/l.vals' &&
		grep -q '^function	Ir \\[new-base\\]	f	-3\$' '$tmp/l.vals'"
# two runs of prog (valgrind: fib(18), fib(22)), a real call tree
"$PROFCONV" diff -q "$CG/prog.default.out" "$CG/prog.n22.out" -o "$tmp/p.d"
"$PROFCONV" dump "$tmp/p.d" >"$tmp/p.dump"
shown "$tmp/p.dump" >"$tmp/p.shown"
check "prog pair: [new-base] = [new] - [base] in every cell hpcviewer derives ($(tail -1 "$tmp/p.shown"))" \
	cells_ok "$tmp/p.shown" 100000
# two real databases (ping-pong, old and v4 hpcprof): stored scopes,
# loops, a call's line in the database of each
pp() { [ -d "$SHARED/hpctoolkit-data/v4-pipit-ping-pong" ] &&
	"$PROFCONV" diff -q "$SHARED/hpctoolkit-data/legacy-pipit-ping-pong" \
		"$SHARED/hpctoolkit-data/v4-pipit-ping-pong" -o "$tmp/pp.d"; }
if pp; then
	"$PROFCONV" dump "$tmp/pp.d" >"$tmp/pp.dump"
	shown "$tmp/pp.dump" >"$tmp/pp.shown"
	check "ping-pong pair: [new-base] = [new] - [base] in every cell hpcviewer derives ($(tail -1 "$tmp/pp.shown"))" \
		cells_ok "$tmp/pp.shown" 200
else
	skip "ping-pong pair: $NO_SHARED"
fi

# hpcviewer's own data layer
if [ ! -f "$J/judge.env" ] || [ ! -x "$HV" ]; then
	skip "hpcviewer's views of a diff: needs hpcviewer's data layer set up in $J (../shared/tools/setup-hpcviewer-judge.sh, or HPCVIEWER_JUDGE)"
	done_testing
	exit $?
fi
export HPCVIEWER_JUDGE="$J"
"$HV" "$tmp/l.d" >"$tmp/l.view" 2>&1
hv_cells "$tmp/l.view" >"$tmp/l.cells"
check "lines pair in hpcviewer: [new-base] = [new] - [base] in every view ($(tail -1 "$tmp/l.cells"))" \
	cells_ok "$tmp/l.cells" 300
# the lines themselves, Ir's inclusive and exclusive columns: line 4
# loses its own 5 (a line with cost in one run only once showed no
# change), line 5 keeps its 7 (an unchanged line once showed the change
# of one of its calls, -10 or -60)
row() { # LINE: the Ir columns of main's line LINE in the tree view
	awk -F'\t' -v l="lines.c: $1" '/^== tree/ { t = 1; next } /^== / { t = 0 }
		t && $1 ~ /\| main \[[^]]*\] \| / { n = split($1, p, " [|] "); if (p[n] == l) print $2, $3, $4, $5, $6, $7 }' "$tmp/l.view"
}
rows="$(row 4) | $(row 5) | $(row 7)"
check "lines pair in hpcviewer: lines 4, 5 and 7 show Ir (I, E) 5 5 - - -5 -5 | 7 7 7 7 - - | - - 9 9 9 9 (got $rows)" \
	test "$rows" = "5 5 - - -5 -5 | 7 7 7 7 - - | - - 9 9 9 9"
"$HV" "$tmp/p.d" >"$tmp/p.view" 2>&1
hv_cells "$tmp/p.view" >"$tmp/p.cells"
check "prog pair in hpcviewer: [new-base] = [new] - [base] in every view ($(tail -1 "$tmp/p.cells"))" \
	cells_ok "$tmp/p.cells" 100000
if [ -d "$tmp/pp.d" ]; then
	"$HV" "$tmp/pp.d" >"$tmp/pp.view" 2>&1
	hv_cells "$tmp/pp.view" >"$tmp/pp.cells"
	check "ping-pong pair in hpcviewer: [new-base] = [new] - [base] in every view ($(tail -1 "$tmp/pp.cells"))" \
		cells_ok "$tmp/pp.cells" 1000
else
	skip "ping-pong pair in hpcviewer: $NO_SHARED"
fi
done_testing
