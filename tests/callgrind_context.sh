#!/bin/sh
# The calling-context tree built from a call graph keeps to the call
# graph (issue "Calling context a user can trust"), judged as a user
# would: callgrind_annotate --tree=calling --inclusive=yes of the input
# and of profconv's Callgrind output of it, edge by edge
# (tests/cg_edges.pl: no edge given more than 1% of the total above the
# input's), a thread's start kept a root with its whole cost, and main's
# inclusive share kept in go tool pprof's cumulative one. Inputs with
# recursive groups: mutual recursion and a group called from a cheap and
# a heavy caller, an interpreter's dispatch loop, a memoized call, sort
# with two threads in one file, cc1plus, CPython and perl.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
CG="$TD/callgrind"
needs callgrind_annotate "call edges" valgrind
# edges NAME MAX-OVER MAX-INVENTED: converts NAME and compares its edges
edges() {
	"$PROFCONV" convert -q -o "$tmp/$1.callgrind" "$CG/$1" 2>"$tmp/err" ||
		{ not_ok "$1: convert failed"; sed 's/^/# /' "$tmp/err"; return; }
	r=$(perl "$top_srcdir/tests/cg_edges.pl" "$CG/$1" "$tmp/$1.callgrind")
	over=$(echo "$r" | sed -n 's/.* over \([0-9]*\) .*/\1/p')
	inv=$(echo "$r" | sed -n 's/.* invented \([0-9.]*\)% .*/\1/p')
	if [ -n "$over" ] && [ "$over" -le "$2" ] &&
		awk -v i="$inv" -v m="$3" 'BEGIN { exit !(i <= m) }'; then
		ok "$1: $over call edges over by more than 1% of the total (at most $2), ${inv}% invented in all"
	else
		not_ok "$1: $r"
	fi
	# no frame outside a summed frame below a caller that the input
	# never has call it (before the heavy functions' own summed frames:
	# the cc1plus fixture 19,723 such edges, 11.5% of the total)
	new=$(echo "$r" | sed -n 's/.* new \([0-9]*\) .*/\1/p')
	[ "$new" = 0 ] && ok "$1: no call the input has not, outside summed frames" ||
		not_ok "$1: calls the input has not: $(echo "$r" | sed 's/.* new //')"

	# the judge of ../shared, where it is: it reads a '[summed: N
	# functions]' frame (a cut tree's, issue 58) as a call of a
	# synthetic root, so it judges trees laid out whole
	if [ "$2" = 0 ] && grep -q '\[summed: ' "$tmp/$1.callgrind"; then
		skip "$1: ../shared/tools/cg_edges.py: the tree is cut, and the judge reads its summed frames as calls"
	elif [ "$2" = 0 ] && [ "$(gzip -dc "$CG/$1" | sed -n '/^events:/{s/^events://p;q}' | wc -w)" -gt 1 ]; then
		# (its patterns read one column of costs: of a file of several
		# events it reads no line, and would agree whatever the output)
		skip "$1: ../shared/tools/cg_edges.py reads files of one event only"
	elif [ "$2" = 0 ] && [ -x /usr/bin/python3 ] && [ -f "$SHARED/tools/cg_edges.py" ]; then
		/usr/bin/python3 "$SHARED/tools/cg_edges.py" "$CG/$1" "$tmp/$1.callgrind" >"$tmp/judge" 2>&1 &&
			ok "$1: ../shared/tools/cg_edges.py agrees: $(head -1 "$tmp/judge" | sed 's/.*over-attributed/over-attributed/')" ||
			{ not_ok "$1: cg_edges.py"; sed 's/^/# /' "$tmp/judge"; }
	fi
}
edges recur.out.gz 0 1
edges interp.out.gz 0 1
edges cache.out.gz 0 1
edges sort-threads.out.gz 0 1
heavy "cc1plus's call edges (2 MB)" && edges cc1plus.out.gz 0 40
# CPython's interpreter loop: 39 edges over and 2028% invented before
# the groups' DAGs; 1 (PyObject_Vectorcall -> _PyObject_MakeTpCall, 2.6
# points over: its other callers, reached on paths without it, had none
# of it) before the DAGs' copies
heavy "py-json's call edges" && edges py-json.out.gz 0 8
# perl, a small input under the tight bound of ~30 times its size: 1
# edge over (main -> _int_malloc, 1.04% for 0) before that bound
# counted a context's calls at what they take
edges perl.out.gz 0 10
# files of several events (the first judged): tests/cg_annotate.pl read
# no line of them before, and the check compared nothing; python3 -S
# with --cache-sim=yes is cut (nine events: 140,360 contexts), its
# worst edge 0.31 point over
edges pyS-cachesim.out.gz 0 2
edges sparse-group.out.gz 0 1
edges recinl.pair-cachesim.out.gz 0 1

# a thread's start (valgrind recorded it without a caller) keeps its
# whole inclusive cost
incl() { # FILE FUNCTION: its inclusive share in callgrind_annotate
	case $1 in *.gz) gzip -dc "$1" >"$tmp/a.cg" ;; *) cp "$1" "$tmp/a.cg" ;; esac
	callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$tmp/a.cg" 2>/dev/null |
		awk -v f="$2" '$0 ~ (":" f " ") || $0 ~ (":" f "$") { gsub(/[(%)]/, "", $2); print $2; exit }'
}
a=$(incl "$CG/sort-threads.out.gz" start_thread)
b=$(incl "$tmp/sort-threads.out.gz.callgrind" start_thread)
if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(b >= a - 1) }'; then
	ok "sort's second thread: start_thread ${b}% inclusive after conversion (${a}% in the input)"
else
	not_ok "sort's second thread: start_thread '${b}'% after conversion, '${a}'% in the input"
fi

# main keeps its inclusive share in go tool pprof's cumulative view
# (cc1plus: its tree is cut; the cuts stay below their nearest anchor).
# Where ../shared's func_cum.py is, the per-function check below judges
# main in recur, interp and cache, within 1 point (it lies on no cycle
# there): this one then only takes cc1plus
if have_go; then
	set --
	[ -x /usr/bin/python3 ] && [ -f "$SHARED/tools/func_cum.py" ] || set -- recur interp cache
	heavy "cc1plus's main in go tool pprof (8 s of CPU a run)" && set -- "$@" cc1plus
	for p in "$@"; do
		"$PROFCONV" convert -q -o "$tmp/$p.pb.gz" "$CG/$p.out.gz"
		a=$(incl "$CG/$p.out.gz" main)
		b=$(HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -top -cum -nodecount=200 -sample_index=0 "$tmp/$p.pb.gz" 2>/dev/null |
			awk '$NF == "main" { gsub(/%/, "", $5); print $5; exit }')
		if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(b >= a - 1) }'; then
			ok "$p: main ${b}% cumulative in go tool pprof (${a}% inclusive in callgrind_annotate)"
		else
			not_ok "$p: main '${b}'% cumulative in go tool pprof, '${a}'% in callgrind_annotate"
		fi
	done
else
	skip "main's share in go tool pprof: $go_why"
fi

# Per function (issue 58): for every function on no cycle of the call
# graph holding 1% or more, its cumulative share in go tool pprof within
# 1 point of its inclusive share in callgrind_annotate
# (../shared/tools/func_cum.py). Before: perl 6 functions off (up to 4.5
# points), prog 7, cc1plus 12 (its tree is cut: 2 now, up to 1.3).
# funcs FILE MAX-OFF [ARGS]: FILE converted (with ARGS) and judged
funcs() {
	gzip -dcf "$CG/$1" >"$tmp/fc.in"
	"$PROFCONV" convert -q --force $3 -o "$tmp/fc.pb.gz" "$tmp/fc.in" ||
		{ not_ok "$1: convert $3 failed"; return; }
	HOME="$tmp" GOCACHE="$tmp/go" /usr/bin/python3 "$SHARED/tools/func_cum.py" \
		"$tmp/fc.in" "$tmp/fc.pb.gz" >"$tmp/fc" 2>&1
	off=$(sed -n 's/.*> 1 point: \([0-9]*\) .*/\1/p' "$tmp/fc" | head -1)
	if [ -n "$off" ] && [ "$off" -le "$2" ]; then
		ok "$1${3:+ ($3)}: $off functions off by more than 1 point (at most $2): $(head -1 "$tmp/fc" | sed 's/.*largest/largest/')"
	else
		not_ok "$1${3:+ ($3)}: func_cum.py"; sed 's/^/# /' "$tmp/fc"
	fi
}
# loss FILE ARGS: the largest loss func_cum.py reports at ARGS
loss() {
	"$PROFCONV" convert -q --force $2 -o "$tmp/ls.pb.gz" "$tmp/fc.in" &&
		HOME="$tmp" GOCACHE="$tmp/go" /usr/bin/python3 "$SHARED/tools/func_cum.py" \
			"$tmp/fc.in" "$tmp/ls.pb.gz" 2>&1 | sed -n 's/.*largest loss \([-0-9.]*\) points.*/\1/p'
}
if ! [ -x /usr/bin/python3 ] || ! [ -f "$SHARED/tools/func_cum.py" ]; then
	skip "per-function shares: needs /usr/bin/python3 and ../shared/tools/func_cum.py"
elif ! have_go; then
	skip "per-function shares: $go_why"
else
	# (each judge is go tool pprof, callgrind_annotate and python3: some
	# 0.7 s of CPU; the quick check takes mutual recursion, perl and the
	# two cut trees below, the extras the others too)
	set -- recur.out.gz perl.out.gz
	heavy "per-function shares of interp, cache, sort-threads, prog and recinl" &&
		set -- "$@" interp.out.gz cache.out.gz sort-threads.out.gz prog.default.out recinl.out.gz
	for f in "$@"; do
		funcs "$f" 0
	done
	# the python3 fixture cut hard: what does not fit below the anchors
	# is split per subtree below the lowest anchor above a function's
	# cuts, not all laid out there (before: 2 functions off, Py_RunMain
	# -2.37 points, its rests laid out above it); a function that only
	# one function passes weight to in a rest lies below it there
	funcs py-json.out.gz 0 --max-contexts=25000
	# a heavy function whose every instance is cut, its rests passed up
	# above its callers: its cost lies below a frame of it in the summed
	# frame, on its heavy path (before: h 1.71% cumulative for 99.93%)
	funcs heavy-cut.out 0 --max-contexts=2000
	# a heavy function reached at many anchors by places lighter than
	# the trim's 0.1%, which the trim would take 0.8 point or more from:
	# its places kept down to 0.05% (before: h -1.57 points)
	funcs heavy-trim.out 0 --max-contexts=520
	# the heavy paths' units go by the loss they give back to the heavy
	# functions that lose more than their goal, not by weight alone
	# (before: py-json at --max-contexts=15000 lost up to 2.58 points,
	# cc1plus at 100000 up to 3.19; now 2.08 and 1.96)
	# within FILE ARGS MAX: the largest loss at ARGS at most MAX points
	within() {
		gzip -dcf "$CG/$1.out.gz" >"$tmp/fc.in"
		l=$(loss "$1" "$2")
		if [ -n "$l" ] && awk -v l="$l" -v m="$3" 'BEGIN { exit !(l >= -m) }'; then
			ok "$1 at $2: largest loss $l points (at most $3)"
		else
			not_ok "$1 at $2: largest loss '$l' points, more than $3"
		fi
	}
	heavy "py-json's largest loss at 15,000 contexts (the quick check judges it at 25,000 above)" &&
		within py-json --max-contexts=15000 2.3
	if heavy "per-function shares of py-json and cc1plus, cc1plus at 2 and 4 times its contexts (go tool pprof on their pprof files)"; then
		funcs py-json.out.gz 0
		funcs cc1plus.out.gz 2
		# an STL compile, 42% of it in summed frames
		funcs stl.out.gz 0
		# more room never tells a worse story: the cc1plus fixture is cut
		# at the default bound; at twice and four times its contexts no
		# function loses more than it does at the default (before: a
		# compile of clang lost 27 points at --max-contexts=400000, 3 at
		# the default)
		gzip -dcf "$CG/cc1plus.out.gz" >"$tmp/fc.in"
		rm -rf "$tmp/d.d"
		"$PROFCONV" convert -q -o "$tmp/d.d" "$tmp/fc.in"
		nc=$("$PROFCONV" info "$tmp/d.d" 2>/dev/null | sed -n 's/^\([0-9]*\) contexts.*/\1/p')
		l0=$(loss cc1plus "")
		for k in 2 4; do
			l=$(loss cc1plus "--max-contexts=$((k * nc))")
			if [ -n "$l0" ] && [ -n "$l" ] && awk -v a="$l0" -v b="$l" 'BEGIN { exit !(b >= a - 0.05) }'; then
				ok "cc1plus at --max-contexts=$((k * nc)): largest loss $l points (default, $nc contexts: $l0)"
			else
				not_ok "cc1plus at --max-contexts=$((k * nc)): largest loss '$l' points, at the default '$l0'"
			fi
		done
		# where the tree is cut for certain, a seventh of the bound goes
		# from the tree to the rests' heavy paths (before: 6 functions
		# off at 100,000 contexts, up to 1.96 points)
		funcs cc1plus.out.gz 0 --max-contexts=100000
		# the units bring a heavy function's loss to 0.97 point, not
		# 0.9, and a seventh of the bound goes to the rests, not a
		# tenth (before: -1.71 points at 85,000 contexts; -1.41 with
		# the goal; now -1.07)
		within cc1plus --max-contexts=85000 1.2
		# a heavy path's unit moves its pieces below its place without
		# waiting for the units above it, which kept a run of the
		# function at each place above with pieces of its own (before:
		# 4 functions off at 75,000 contexts, up to 1.73 points; now
		# -0.93)
		funcs cc1plus.out.gz 0 --max-contexts=75000
	fi
fi
# More room never tells a worse story, function by function (issue 58,
# item 3; tests/func_room.pl): at 1.01 to four times the contexts of
# the default bound, no function of the cc1plus fixture is further from
# its inclusive share in callgrind_annotate than at the default, but for
# 0.0005 point (the values' rounding to whole numbers). The heavy
# paths' trims scale with the room (cg_trim_scale; before: 10 functions
# further at twice the contexts, up to 0.13 point, and 10 at four
# times, up to 0.13: places lighter than the trim's fixed 0.1%, lighter
# as less is cut, took the path above); a larger bound's units go in
# the order, of three, that leaves the functions' losses nearest their
# losses at the default (before: at these bounds 2 functions further at
# 1.02 times, up to 0.002 point, and 1 at 1.05, 0.0007)
if ! have_go; then
	skip "more room, function by function: $go_why"
elif heavy "more room, function by function (cc1plus converted 7 times, go tool pprof on each)"; then
	gzip -dc "$CG/cc1plus.out.gz" >"$tmp/room.in"
	rm -rf "$tmp/room.d"
	"$PROFCONV" convert -q -o "$tmp/room.d" "$tmp/room.in"
	nc=$("$PROFCONV" info "$tmp/room.d" 2>/dev/null | sed -n 's/^\([0-9]*\) contexts.*/\1/p')
	"$PROFCONV" convert -q -o "$tmp/room1.pb.gz" "$tmp/room.in"
	ks="1.01 1.02 1.05 1.2 2 4" files=
	for k in $ks; do
		m=$(awk -v k="$k" -v n="$nc" 'BEGIN { printf "%d", k * n }')
		"$PROFCONV" convert -q --max-contexts="$m" \
			-o "$tmp/room$k.pb.gz" "$tmp/room.in"
		files="$files $tmp/room$k.pb.gz"
	done
	HOME="$tmp" GOCACHE="$tmp/go" perl "$top_srcdir/tests/func_room.pl" \
		"$tmp/room.in" "$tmp/room1.pb.gz" $files >"$tmp/room" 2>&1
	for k in $ks; do
		m=$(awk -v k="$k" -v n="$nc" 'BEGIN { printf "%d", k * n }')
		r=$(grep "room$k.pb.gz further" "$tmp/room" | sed 's/.* further //')
		case $r in
		"0 "*) ok "cc1plus at --max-contexts=$m ($k times): no function further from its inclusive share than at the default ($nc contexts)" ;;
		*) not_ok "cc1plus at --max-contexts=$m ($k times): functions further from their inclusive share than at the default ($nc contexts): '$r'"
		   sed 's/^/# /' "$tmp/room" ;;
		esac
	done
fi
# A bound given above a tree the default lays out whole keeps it whole:
# of an explicit bound a fifth is kept for summed frames, so just above
# the whole tree's contexts the tree was cut, silently (under 1% cut),
# and a function moved (prog: _dl_map_object 0.11 point); now the
# default's tree is judged against (below), and it is whole
for f in recur.out.gz prog.default.out; do
	nc=$("$PROFCONV" info "$CG/$f" 2>/dev/null | sed -n 's/^\([0-9]*\) contexts.*/\1/p')
	m=$((nc + nc / 100 + 1))
	"$PROFCONV" convert -q --force -o "$tmp/whole0.callgrind" "$CG/$f"
	"$PROFCONV" convert --force --max-contexts="$m" -o "$tmp/whole1.callgrind" \
		"$CG/$f" 2>"$tmp/err"
	if grep -q "^profconv: note: --max-contexts=$m: its tree would .*default bound's.* is kept" "$tmp/err" &&
		cmp -s "$tmp/whole0.callgrind" "$tmp/whole1.callgrind" &&
		! grep -q '\[summed: ' "$tmp/whole1.callgrind"; then
		ok "$f at --max-contexts=$m, above its whole tree ($nc contexts): laid out whole, as by default, and a note says why"
	else
		not_ok "$f at --max-contexts=$m, above its whole tree ($nc contexts): laid out whole, as by default"
		sed 's/^/# /' "$tmp/err"
	fi
done
# More room, by construction: where a larger bound's tree, laid out,
# still draws a heavy function further below its inclusive cost than the
# default's tree does (cg_room_worse: past 0.0002 point; either way past
# 0.02), the default's tree is laid out in its place and a note says so.
# An STL compile (42% of it in summed frames at the default): at 1.01 to
# 1.04 times its contexts
# the units' greedy order drew free up to 0.022 point further; at 1.01
# times the default's tree now, the same bytes; at 1.05 times its own
# (none further: no note). Both judged by tests/func_room.pl
if ! have_go; then
	skip "more room on an STL compile: $go_why"
elif heavy "more room on an STL compile (4.3 MB converted 3 times, go tool pprof on each)"; then
	gzip -dc "$CG/stl.out.gz" >"$tmp/stl.in"
	nc=$("$PROFCONV" info "$tmp/stl.in" 2>/dev/null | sed -n 's/^\([0-9]*\) contexts.*/\1/p')
	"$PROFCONV" convert -q -o "$tmp/stl1.pb.gz" "$tmp/stl.in"
	m1=$(awk -v n="$nc" 'BEGIN { printf "%d", 1.01 * n }')
	m5=$(awk -v n="$nc" 'BEGIN { printf "%d", 1.05 * n }')
	"$PROFCONV" convert --max-contexts="$m1" -o "$tmp/stl1.01.pb.gz" \
		"$tmp/stl.in" 2>"$tmp/stl.err"
	"$PROFCONV" convert --max-contexts="$m5" -o "$tmp/stl1.05.pb.gz" \
		"$tmp/stl.in" 2>"$tmp/stl5.err"
	said=$(sed -n "s/.*--max-contexts=$m1: its tree would draw \(.*\) point further.*(\([0-9]*\) contexts) is kept.*/\1 \2/p" "$tmp/stl.err")
	if [ -n "$said" ] && cmp -s "$tmp/stl1.pb.gz" "$tmp/stl1.01.pb.gz"; then
		ok "STL compile at --max-contexts=$m1 (1.01 times): the default's tree kept, the same bytes, and a note says why ($said)"
	else
		not_ok "STL compile at --max-contexts=$m1 (1.01 times): the default's tree kept with a note ('$said')"
		sed 's/^/# /' "$tmp/stl.err"
	fi
	if ! grep -q "would draw" "$tmp/stl5.err" &&
		! cmp -s "$tmp/stl1.pb.gz" "$tmp/stl1.05.pb.gz"; then
		ok "STL compile at --max-contexts=$m5 (1.05 times): its own tree, no note"
	else
		not_ok "STL compile at --max-contexts=$m5 (1.05 times): its own tree, no note"
		sed 's/^/# /' "$tmp/stl5.err"
	fi
	HOME="$tmp" GOCACHE="$tmp/go" perl "$top_srcdir/tests/func_room.pl" \
		"$tmp/stl.in" "$tmp/stl1.pb.gz" "$tmp/stl1.01.pb.gz" \
		"$tmp/stl1.05.pb.gz" >"$tmp/room" 2>&1
	for k in 1.01 1.05; do
		r=$(grep "stl$k.pb.gz further" "$tmp/room" | sed 's/.* further //')
		case $r in
		"0 "*) ok "STL compile at $k times the default's contexts: no function further from its inclusive share than at the default" ;;
		*) not_ok "STL compile at $k times the default's contexts: functions further from their inclusive share than at the default: '$r'"
		   sed 's/^/# /' "$tmp/room" ;;
		esac
	done
fi
# --verbose says how far above its cut's caller the rests' cost lies:
# heavy-trim.out at 520 contexts cuts the leaves below h, which is no
# anchor (0.09% an instance), so all of it is passed up at least one
# function level (h's), here two (the splits lay it at main's)
"$PROFCONV" convert --verbose --force --max-contexts=520 -o "$tmp/up.pb.gz" \
	"$CG/heavy-trim.out" 2>"$tmp/err" || true
up=$(sed -n 's/.*of the \([0-9.]*\)% in rests, \([0-9.]*\)% lies below a context other than its cut.s caller, \([0-9.]*\) function levels above it.*/\1 \2 \3/p' "$tmp/err")
if [ -n "$up" ] && echo "$up" | awk '{ exit !($1 > 1 && $1 == $2 && $3 >= 1) }'; then
	ok "heavy-trim.out at 520 contexts: --verbose says the rests' cost passed up and how far ($up)"
else
	not_ok "heavy-trim.out at 520 contexts: --verbose says the rests' cost passed up and how far ($up)"
	sed 's/^/# /' "$tmp/err" | head -5
fi
# The rests' work in near-linear time: a chain of 40,000 functions, each
# heavy (nearly all the cost lies below it), two light leaves at each,
# at --max-contexts=1000: the rests' walks go down 40,000 heavy paths
# and pieces lie below every place of them. Each walk's step below a
# heavy function asked whether it was on the path by walking the path
# up (cg_hpath_step: 10.4 s of CPU before, 0.6 s now). Not in a
# sanitizer build: there it takes 6 s at 5,000 functions and 21 s at
# 10,000 (ASan's realloc copies, likely the pieces' arrays, grown
# exactly at each walk: piece_reserve).
if sanitized; then
	skip "a chain of 40,000 heavy functions: CPU bound needs a build without sanitizers"
	done_testing
	exit
fi
awk -v d=40000 'BEGIN {
	big = 1e9
	print "# callgrind format"; print "version: 1"; print "creator: chain"
	print "positions: line"; print "events: Ir"; print ""; print "fl=chain.c"
	print "fn=main"; print "1 10"; print "cfn=c0"; print "calls=1 1"
	printf "2 %.0f\n\n", big + d * 12
	for (i = 0; i < d; i++) {
		printf "fn=c%d\n%d 10\n", i, i + 3
		for (j = 0; j < 2; j++)
			printf "cfn=l%d_%d\ncalls=1 1\n%d 1\n", i, j, i + 3
		if (i + 1 < d)
			printf "cfn=c%d\ncalls=1 1\n%d %.0f\n\n", i + 1, i + 3,
				big + (d - i - 1) * 12
		else
			printf "%d %.0f\n\n", i + 4, big
	}
	for (i = 0; i < d; i++)
		for (j = 0; j < 2; j++)
			printf "fn=l%d_%d\n%d 1\n\n", i, j, i + 3
}' >"$tmp/chain.out"
rm -rf "$tmp/chain.d"
if limited 5 "$PROFCONV" convert -q -j1 --max-contexts=1000 -o "$tmp/chain.d" "$tmp/chain.out" 2>"$tmp/err" &&
	"$PROFCONV" info "$tmp/chain.d" >"$tmp/info" 2>&1; then
	ok "a chain of 40,000 heavy functions cut at 1,000 contexts: within 5 s of CPU"
else
	not_ok "a chain of 40,000 heavy functions cut at 1,000 contexts: not within 5 s of CPU (status $?)"
	sed 's/^/# /' "$tmp/err" | head -5
fi
done_testing
