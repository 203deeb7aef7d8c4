#!/bin/bash
# Linux perf samples: perf script text and perf.data (testdata/perf, made
# by perf here: see its make-fixtures.sh), judged by the FlameGraph
# scripts (stackcollapse-perf.pl: the same stacks) and by perf report
# (the same self and children values per symbol); the outputs read back
# (v4 check, Callgrind), two runs compared, traces, bad input, memory
# bounded in the samples; and a recording made here where perf may
# record (SKIP with the reason where it may not).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
D="$TD/perf"
J="$top_srcdir/tests"

# stackcollapse-perf.pl: $FLAMEGRAPH (a clone of brendangregg/FlameGraph),
# else the mirror of it beside this machine's work, else on PATH
sc=""
if [ -n "${FLAMEGRAPH:-}" ] && [ -f "$FLAMEGRAPH/stackcollapse-perf.pl" ]; then
	sc="$FLAMEGRAPH/stackcollapse-perf.pl"
elif [ -d /work/.mirror/brendangregg+FlameGraph/repo ] &&
	git --git-dir=/work/.mirror/brendangregg+FlameGraph/repo show \
		HEAD:stackcollapse-perf.pl >"$tmp/stackcollapse-perf.pl" 2>/dev/null; then
	sc="$tmp/stackcollapse-perf.pl"
elif command -v stackcollapse-perf.pl >/dev/null; then
	sc=$(command -v stackcollapse-perf.pl)
fi
NO_SC="needs stackcollapse-perf.pl (FLAMEGRAPH=DIR of a clone of brendangregg/FlameGraph)"

# the count of samples and the sum of their periods in a perf script
# text (header lines: those that start a sample)
periods() {
	awk '/^[^ \t#]/ || /^ +[^ \t].*: / { for (i = 2; i <= NF; i++)
		if ($i ~ /:$/ && $i !~ /^[0-9.]+:$/ && $(i - 1) ~ /^[0-9]+$/) {
			s += $(i - 1); break } k++ }
		END { print k, s }' "$1"
}

# 1. each text fixture: detected, read; its folded stacks are
# stackcollapse-perf.pl's (those without call chains: it reads none)
for f in thr.txt thr.fields.txt thr.inline.txt thr.two-events.txt gzip.txt; do
	if ! "$PROFCONV" convert -q "$D/$f" -t folded --min-width=0 \
		-o "$tmp/$f.folded" 2>"$tmp/err"; then
		not_ok "$f: read"; sed 's/^/# /' "$tmp/err"; continue
	fi
	if [ -z "$sc" ]; then skip "$f: folded = stackcollapse-perf.pl: $NO_SC"; continue; fi
	perl "$sc" "$D/$f" >"$tmp/$f.sc" 2>/dev/null
	check "$f: folded stacks = stackcollapse-perf.pl's, stack for stack" \
		python3 "$J/perf_folded.py" "$tmp/$f.folded" "$tmp/$f.sc"
done

# totals: every sample's period, per event
"$PROFCONV" info "$D/thr.fields.txt" >"$tmp/info"
set -- $(periods "$D/thr.fields.txt")
check "thr.fields.txt: the metric's total is the sum of the $1 samples' periods ($2)" \
	grep -q "^  cpu-clock:ppp: $2 ns " "$tmp/info"
check "thr.fields.txt: a sample per trace sample ($1)" grep -q "^trace: $1 samples" "$tmp/info"
check "thr.fields.txt: a profile per process and thread (RANK, THREAD)" \
	grep -q '^  2: RANK 0 THREAD 1,' "$tmp/info"
"$PROFCONV" info "$D/thr.two-events.txt" >"$tmp/info"
for ev in cpu-clock task-clock; do
	s=$(awk -v ev="$ev:" '$NF == ev { s += $(NF - 1) } END { print s }' "$D/thr.two-events.txt")
	check "thr.two-events.txt: a metric per event, $ev's total $s" \
		grep -q "^  $ev: $s ns " "$tmp/info"
done

# inlined frames and source lines: thr.srcline.txt is thr.inline.txt
# with perf's source lines (-F +srcline): the same stacks; inlined
# contexts (poly in leaf, as thr.c has it); lines where perf gives them
"$PROFCONV" convert -q "$D/thr.srcline.txt" -t folded --min-width=0 -o "$tmp/src.folded"
check "+srcline: the same stacks as without" cmp "$tmp/src.folded" "$tmp/thr.inline.txt.folded"
"$PROFCONV" dump -q "$D/thr.srcline.txt" >"$tmp/src.dump"
# (dump: f13 "poly" ..., F4 ".../thr.c", c27 parent=c26 inlined function
# fn=f13, c26 parent=c21 lexical line src=F4:6)
check "poly is an inlined context, below leaf's line 6 of thr.c" \
	awk '$2 == "\"poly\"" { fn = $1 } $2 ~ /thr\.c"$/ { file = $1 }
		$1 ~ /^c/ { sub(/parent=/, "", $2); par[$1] = $2; what[$1] = $3 " " $4 " " $5 }
		END { for (c in what) if (what[c] == "inlined function fn=" fn &&
			what[par[c]] == "lexical line src=" file ":6") exit 0; exit 1 }' "$tmp/src.dump"
ni=$(grep -c ' inlined function ' "$tmp/src.dump")
check "inlined contexts: poly's, under main and under worker ($ni)" test "$ni" -ge 2
"$PROFCONV" dump -q "$D/thr.inline.txt" >"$tmp/inl.dump"
check "without source lines, no line contexts" sh -c "! grep -q ' line ' '$tmp/inl.dump'"
# [unknown] frames: their address in their module
"$PROFCONV" dump -q "$D/gzip.txt" >"$tmp/gz.dump"
check "[unknown] symbols keep their address in their module (gzip's)" \
	grep -q 'lexical instruction at=M[0-9]*+0x4883$' "$tmp/gz.dump"

# no call chains: the sample's frame on its line; no time, no event
"$PROFCONV" info "$D/thr.flat.txt" >"$tmp/info"
set -- $(periods "$D/thr.flat.txt")
check "no call chains: the total of the $1 samples ($2)" grep -q "^  cpu-clock:ppp: $2 ns " "$tmp/info"
"$PROFCONV" info -f perf "$D/thr.flat-notime.txt" >"$tmp/info"
ns=$(grep -c . "$D/thr.flat-notime.txt")
check "-F comm,tid,ip,sym: a metric 'samples' counting the $ns samples" \
	grep -q "^  samples: $ns samples" "$tmp/info"
check "... with no trace" grep -q '^trace: none' "$tmp/info"

# the header's forms: --header comments, a command name with blanks and
# a digit, pid/tid and tid alone, the cpu, a dso with parentheses,
# records of other kinds (skipped), a tracepoint without call chains and
# with its fields after the event (no period: samples counted)
cat >"$tmp/forms.txt" <<'EOF'
# ========
# captured on    : Sat Nov 28 23:40:00 2026
# ========
#
Web Content 2  4242/4243 [001]   100.000001:     250000 cpu-clock: 
	ffffffff81000010 do_idle+0x10 ([kernel.kallsyms])
	    55d0c0de1008 main+0x8 (/usr/bin/web content (deleted))

swapper     0 [000]   100.000002:     250000 cpu-clock: 
	ffffffff81000020 cpu_idle+0x20 ([kernel.kallsyms])

perf  4300 [000]   100.000003: PERF_RECORD_COMM: perf:4300/4300
bash  4301 [000]   100.000004: sched:sched_switch: prev_comm=bash prev_pid=4301 prev_prio=120
bash  4301 [000]   100.000005: sched:sched_switch: prev_comm=bash prev_pid=4301 prev_prio=120
EOF
"$PROFCONV" info "$tmp/forms.txt" >"$tmp/info"
"$PROFCONV" dump -q "$tmp/forms.txt" >"$tmp/forms.dump"
check "forms: 'Web Content 2' is process 4242, thread 4243" grep -q '^  1: RANK 0 THREAD 0, 1 value, 1 trace sample$' "$tmp/info"
check "forms: three profiles (the record of another kind skipped)" grep -q '^3 profiles:' "$tmp/info"
check "forms: cpu-clock, two samples' periods" grep -q '^  cpu-clock: 500000 ns ' "$tmp/info"
check "forms: a tracepoint without a period counts its samples" grep -q '^  sched:sched_switch: 2 samples ' "$tmp/info"
check "forms: a dso with parentheses is the module" grep -q '^M[0-9]* "/usr/bin/web content (deleted)"$' "$tmp/forms.dump"
check "forms: main's entry is its address less its offset" grep -q '"main" module=M[0-9]* offset=0x55d0c0de1000 ' "$tmp/forms.dump"

# --instructions: every frame's address a context (the folded stacks,
# which name functions, unchanged)
"$PROFCONV" convert -q --instructions "$D/thr.fields.txt" -t folded --min-width=0 -o "$tmp/i.folded"
check "--instructions: the same folded stacks" cmp "$tmp/i.folded" "$tmp/thr.fields.txt.folded"
ni=$("$PROFCONV" dump -q --instructions "$D/thr.fields.txt" | grep -c ' lexical instruction at=')
# (the paths: a thread's entry, main or not, then its frames' lines
# from the outermost, each prefix once)
na=$(awk '/^[^\t]/ && NF { split($2, id, "/"); n = 0; top = (id[1] == id[2]) }
	/^\t/ { f[++n] = $0 }
	/^$/ && n { p = top; for (i = n; i >= 1; i--) { p = p SUBSEP f[i]; seen[p] = 1 } n = 0 }
	END { for (k in seen) c++; print c }' "$D/thr.fields.txt")
check "--instructions: an instruction context per address on each path ($ni)" test "$ni" -eq "$na"
# profconv-mpi: the same database, byte for byte
if [ -x "$top_builddir/profconv-mpi" ] && command -v mpirun >/dev/null; then
	"$PROFCONV" convert -q "$D/thr.fields.txt" -o "$tmp/ser.d"
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 \
		OMPI_MCA_btl="self,vader" OMPI_MCA_btl_vader_single_copy_mechanism=none \
		limited 600 mpirun --oversubscribe -np 2 -x ASAN_OPTIONS "$top_builddir/profconv-mpi" \
		convert -q "$D/thr.fields.txt" -o "$tmp/mpi.d" >/dev/null 2>&1
	check "profconv-mpi at 2 ranks: the serial database" \
		sh -c "for f in meta.db profile.db cct.db trace.db; do cmp '$tmp/ser.d/'\$f '$tmp/mpi.d/'\$f || exit 1; done"
else
	skip "profconv-mpi: needs MPI (Debian: libopenmpi-dev openmpi-bin)"
fi

# 2. perf.data: read through perf script, as its text
if command -v perf >/dev/null; then
	"$PROFCONV" convert -q "$D/thr.data" -t folded --min-width=0 -o "$tmp/data.folded"
	perf script -i "$D/thr.data" -f --ns --inline \
		-F comm,pid,tid,time,period,event,ip,sym,symoff,dso >"$tmp/data.txt" 2>/dev/null
	"$PROFCONV" convert -q "$tmp/data.txt" -t folded --min-width=0 -o "$tmp/text.folded"
	check "perf.data: the stacks of its perf script text" cmp "$tmp/data.folded" "$tmp/text.folded"
	"$PROFCONV" info "$D/thr.data" >"$tmp/info"
	set -- $(periods "$tmp/data.txt")
	check "perf.data: trace of $1 samples, periods $2" \
		grep -q "^trace: $1 samples" "$tmp/info"
	# perf report of the same file: self periods and children shares
	perf report -f -i "$D/thr.data" --stdio --no-children --sort sym -g none \
		-F period,sym >"$tmp/self" 2>/dev/null
	check "perf.data: self values per symbol = perf report --no-children" \
		python3 "$J/perf_report.py" self "$tmp/data.folded" "$tmp/self"
	perf report -f -i "$D/thr.data" --stdio --children --sort sym -g none >"$tmp/ch" 2>/dev/null
	check "perf.data: children shares per symbol = perf report --children" \
		python3 "$J/perf_report.py" children "$tmp/data.folded" "$tmp/ch"
else
	for i in 1 2 3 4; do skip "perf.data: needs perf (Debian: linux-perf)"; done
fi
PROFCONV_PERF=/nonexistent/perf "$PROFCONV" convert "$D/thr.data" -o "$tmp/x.d" 2>"$tmp/err"
rc=$?
check "perf.data without perf: exit 1, one line that says so, nothing written" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] &&
		grep -q 'thr.data: a perf.data file, read by running .*perf script' '$tmp/err' &&
		[ ! -e '$tmp/x.d' ]"

# 3. the outputs: a v4 database that checks, with the input's totals; a
# Callgrind file that reads back; a Chrome trace of every sample
"$PROFCONV" convert -q "$D/thr.srcline.txt" -o "$tmp/db.d"
check "v4 database: profconv check --strict" "$PROFCONV" check --strict "$tmp/db.d"
"$PROFCONV" check --values "$tmp/db.d" >"$tmp/values"
set -- $(periods "$D/thr.srcline.txt")
check "v4 database: total $2" grep -q "^total	cpu-clock:ppp	$2$" "$tmp/values"
"$PROFCONV" info "$tmp/db.d" >"$tmp/info"
check "v4 database: trace.db with the $1 samples" grep -q "^trace: $1 samples" "$tmp/info"
"$PROFCONV" convert -q "$D/thr.srcline.txt" -o "$tmp/callgrind.out.perf"
"$PROFCONV" info "$tmp/callgrind.out.perf" >"$tmp/info"
check "Callgrind output reads back: total $2" grep -q "^  cpu_clock_ppp: $2 " "$tmp/info"
if command -v callgrind_annotate >/dev/null; then
	callgrind_annotate "$tmp/callgrind.out.perf" >"$tmp/ann" 2>&1
	tot=$(printf "%'d" "$2" 2>/dev/null || echo "$2")
	check "callgrind_annotate: program totals" grep -q "PROGRAM TOTALS" "$tmp/ann"
	check "callgrind_annotate: poly's self cost at thr.c" grep -q ' thr.c:poly$' "$tmp/ann"
else
	skip "callgrind_annotate not installed"; skip "callgrind_annotate not installed"
fi
if have_kc; then
	kc "$tmp/callgrind.out.perf" >"$tmp/kc"
	check "KCachegrind loads it cleanly" test ! -s "$tmp/kc"
else
	skip "KCachegrind: needs kcachegrind and dbus-run-session"
fi
"$PROFCONV" convert -q "$D/thr.fields.txt" -o "$tmp/trace.json" -t chrome-trace
ev=$(grep -o '"name":"leaf"' "$tmp/trace.json" | wc -l)
check "Chrome trace: leaf's events from the samples ($ev)" test "$ev" -gt 0

# 4. two perf runs compared: thr.txt and thr.inline.txt (two recordings)
"$PROFCONV" diff -q "$D/thr.txt" "$D/thr.inline.txt" -t folded --min-width=0 -o "$tmp/d.folded"
set -- $(periods "$D/thr.txt"); b=$2
set -- $(periods "$D/thr.inline.txt"); nw=$2
sums=$(awk '{ b += $(NF - 1); n += $NF } END { print b, n }' "$tmp/d.folded")
check "diff of two perf runs: BASE $b and NEW $nw in the two counts" test "$sums" = "$b $nw"
"$PROFCONV" diff -q "$D/thr.txt" "$D/thr.inline.txt" -o "$tmp/diff.d"
check "diff of two perf runs: a v4 database that checks" "$PROFCONV" check --strict "$tmp/diff.d"

# 5. bad input: one line with the file and line, exit 1, nothing written
mkdir -p "$tmp/bad"
head -3 "$D/thr.txt" >"$tmp/bad/chain-no-blank.txt"
head -1 "$D/thr.txt" >>"$tmp/bad/chain-no-blank.txt"
printf 'thr 1 1.5: 10 cpu-clock: \n\t401000 foo (/bin/x)\n\tzz1 bar (/bin/x)\n\n' >"$tmp/bad/bad-ip.txt"
printf 'thr 1 1.5: 10 cpu-clock: \n\t401000 foo (/bin/x)\n\n\tnot in a sample\n' >"$tmp/bad/orphan.txt"
printf 'thr 1 1.5: 10 cpu-clock: \n\t401000 foo (/bin/x)\n\nthr x 1.6: 10 cpu-clock: \n' >"$tmp/bad/no-tid.txt"
printf 'thr 1 1.5: 99999999999999999999 cpu-clock: \n\t401000 foo (/bin/x)\n\n' >"$tmp/bad/period.txt"
# (a sample's callers are parsed at its end, once while they are new:
# still the first bad line of the text is named; 2^64 does not fit)
printf 'thr 1 1.5: 10 cpu-clock: \n\t401000 foo (/bin/x)\n\t402000 bar (/bin/x)\n\tzz1 baz (/bin/x)\n\tyy2 q (/bin/x)\n\n' >"$tmp/bad/bad-callers.txt"
printf 'thr 1 1.5: 10 cpu-clock: \n\t401000 foo (/bin/x)\n\tzz1 bar (/bin/x)\nthr 1 1.6: 10 cpu-clock: \n' >"$tmp/bad/bad-caller-no-blank.txt"
printf 'thr 1 1.5: 10 cpu-clock: \n\t401000 foo (/bin/x)\n\t402000 bar (/bin/x)\n\nthr 1 1.6: 10 cpu-clock: \n\t401001 foo (/bin/x)\n\t402000 bar (/bin/x)\n\tzz1 baz (/bin/x)\n' >"$tmp/bad/bad-caller-end.txt"
printf 'thr 1 1.5: 18446744073709551616 cpu-clock: \n\t401000 foo (/bin/x)\n\n' >"$tmp/bad/period64.txt"
bad_inputs "$tmp/bad" <<'LIST'
chain-no-blank.txt chain-no-blank.txt:4: a sample line inside the stack of the sample of line 1 (no blank
bad-ip.txt bad-ip.txt:3: a stack frame that does not start with an address
orphan.txt orphan.txt:4: a stack frame outside of a sample
no-tid.txt no-tid.txt:4: not a perf script sample: no process or thread id before the time
period.txt period.txt:1: period 99999999999999999999 does not fit 64 bits
bad-callers.txt bad-callers.txt:4: a stack frame that does not start with an address
bad-caller-no-blank.txt bad-caller-no-blank.txt:3: a stack frame that does not start with an address
bad-caller-end.txt bad-caller-end.txt:8: a stack frame that does not start with an address
period64.txt period64.txt:1: period 18446744073709551616 does not fit 64 bits
LIST

# 6. memory bounded in the samples: 1x and 10x the samples of one
# recording make the same tree and values (samples are summed as they
# come), and peak alike
for k in 1 10; do
	for i in $(seq $((k * 20))); do cat "$D/gzip.txt"; done >"$tmp/big$k.txt"
	"$PROFCONV" info "$tmp/big$k.txt" | grep -v '^input\|^title\|^trace\|^  cpu-clock' |
		sed 's/, [0-9]* trace samples//' >"$tmp/shape$k"
done
check "1x and 10x the samples: the same contexts and values" cmp "$tmp/shape1" "$tmp/shape10"
# the caches of lines and callers seen emptied again and again (their
# bounds a few kB: PROFCONV_PERF_CACHE) change nothing written
for f in thr.txt thr.srcline.txt thr.inline.txt thr.two-events.txt gzip.txt; do
	"$PROFCONV" convert -q "$D/$f" -t callgrind -o "$tmp/$f.c1.out" 2>&1 &&
		PROFCONV_PERF_CACHE=3000 "$PROFCONV" convert -q "$D/$f" \
			-t callgrind -o "$tmp/$f.c2.out" 2>&1
	check "$f: the same Callgrind file with the caches emptied every few samples" \
		cmp "$tmp/$f.c1.out" "$tmp/$f.c2.out"
done
# a sample's lines after its first caller taken as one text where they
# are those of the last callers found twice that began with that line
# (pc_lines_skip): a longer and a shorter stack after it, another
# thread's entry, a line ending in CR, the end of the input without a
# blank line; the same with the caches emptied every sample (1 byte:
# no text kept) and every few; and the line of an error after them
cand_h() { printf 'prog %s %s: 10 cpu-clock: \n' "$1" "$2"; }
cand_f() { printf '\t%s %s (/bin/x)\n' "$1" "$2"; }
cand_bcd() { cand_f 402010 b+0x10; cand_f 403010 c+0x10; cand_f 404010 d+0x10; }
{
	for i in 1 2 3; do cand_h 1 1.0$i; cand_f 40100$i a+0x$i; cand_bcd; echo; done
	cand_h 1 1.04; cand_f 401004 a+0x4; cand_bcd; cand_f 405010 e+0x10; echo
	cand_h 1 1.05; cand_f 401005 a+0x5; cand_f 402010 b+0x10; cand_f 403010 c+0x10; echo
	cand_h 2/3 1.06; cand_f 401006 a+0x6; cand_bcd; echo
	cand_h 1 1.07; cand_f 401007 a+0x7; cand_f 402010 b+0x10
	printf '\t403010 c+0x10 (/bin/x)\r\n'; cand_f 404010 d+0x10; echo
	for i in 8 9; do cand_h 1 1.0$i; cand_f 40100$i a+0x$i; cand_bcd; echo; done
	cand_h 1 1.10; cand_f 40100a a+0xa; cand_bcd
} >"$tmp/cand.txt"
printf '%s\n' '[main thread];d;c;b;a 70' '[main thread];e;d;c;b;a 10' \
	'[main thread];c;b;a 10' '[application thread];d;c;b;a 10' >"$tmp/cand.want"
for cb in 0 1 200; do
	PROFCONV_PERF_CACHE=$cb "$PROFCONV" convert -q "$tmp/cand.txt" -t folded \
		--min-width=0 -o "$tmp/cand.$cb.folded" 2>&1
	check "callers taken as one text (caches' bound $cb bytes, 0: the default): the same stacks" \
		cmp "$tmp/cand.want" "$tmp/cand.$cb.folded"
done
# several callers kept by their text for one first line: two stacks
# after the same first caller (b) in turn, each taken as one text from
# their third time (the last one kept for b alone would be the other's
# every time); and kernel frames above a stack seen, the frame under
# them new every time (its address): the lines after it taken as one
# text (PROFCONV_PERF_STATS: samples so taken, lines looked up)
cand_k() { printf '\t%s %s ([kernel.kallsyms])\n' "$1" "$2"; }
{
	for i in 1 2 3 4 5 6; do
		cand_h 1 2.0$i; cand_f 40100$i a+0x$i; cand_bcd; echo
		cand_h 1 2.1$i; cand_f 40600$i e+0x$i; cand_f 402010 b+0x10
		cand_f 407010 f+0x10; cand_f 408010 g+0x10; echo
	done
	for i in 1 2 3; do
		cand_h 1 2.2$i; cand_k ffffffff81000013 k1+0x13
		cand_k ffffffff81000113 k2+0x13; cand_f 40104$i a+0x4$i; cand_bcd
		echo
	done
} >"$tmp/chain.txt"
printf '%s\n' '[main thread];d;c;b;a 60' '[main thread];g;f;b;e 60' \
	'[main thread];d;c;b;a;k2;k1 30' >"$tmp/chain.want"
for cb in 0 1 200; do
	PROFCONV_PERF_STATS=1 PROFCONV_PERF_CACHE=$cb "$PROFCONV" convert -q \
		"$tmp/chain.txt" -t folded --min-width=0 -o "$tmp/chain.$cb.folded" \
		2>"$tmp/chain.$cb.stats"
	check "two stacks after one first caller, kernel frames above one (caches' bound $cb bytes): the same stacks" \
		cmp "$tmp/chain.want" "$tmp/chain.$cb.folded"
done
check "two stacks after one first caller: 8 of 12 samples taken as one text at it, 3 under kernel frames at a later caller" \
	grep -q '^perf stats: 15 samples, 8 found .* first caller, 3 at a later one, 29 callers' "$tmp/chain.0.stats"
# threads taking turns: a sample line that ends as the one before it
# (period, event) after its time, its thread's ids before the time, is
# read without parsing it token by token (a command's name of words and
# numbers; a [CPU] where the one before had none, and the other way: parsed
# whole); the same stacks as stackcollapse-perf.pl makes of them
hdr_s() { printf '%s\n' "$1"; cand_f 401000 a+0x0; cand_f 402010 b+0x10; echo; }
{
	for i in 1 2 3; do
		hdr_s "prog 7/7 3.00000$i: 10 cpu-clock: "
		hdr_s "prog 7/8 3.00001$i: 10 cpu-clock: "
		hdr_s "my prog 2 7/9 3.00002$i: 10 cpu-clock: "
	done
	hdr_s 'prog 7/8 [001] 3.000030: 10 cpu-clock: '
	hdr_s 'prog 7/9 [001] 3.000031: 10 cpu-clock: '
	hdr_s 'prog 7/7 3.000032: 20 cpu-clock: '
	hdr_s 'prog 7/8 3.000033: 20 cpu-clock: '
} >"$tmp/hdr.txt"
printf '%s\n' '[main thread];b;a 50' '[application thread];b;a 100' >"$tmp/hdr.want"
PROFCONV_PERF_STATS=1 "$PROFCONV" convert -q "$tmp/hdr.txt" -t folded \
	--min-width=0 -o "$tmp/hdr.folded" 2>"$tmp/hdr.stats"
check "threads taking turns: the same stacks" cmp "$tmp/hdr.want" "$tmp/hdr.folded"
check "threads taking turns: 3 of 13 sample lines parsed token by token" \
	grep -q '^perf stats: 13 samples, .*, 3 sample lines parsed whole$' "$tmp/hdr.stats"
"$PROFCONV" dump -q "$tmp/hdr.txt" | sed -n '/^values/,/^trace p1/p' >"$tmp/hdr.dump"
printf '%s\n' 'values 3' 'p0 c3 m0 50' 'p1 c6 m0 60' 'p2 c6 m0 40' 'traces 3' \
	'trace p0 4' 3000001000 3000002000 3000003000 3000032000 'trace p1 5' |
	sed 's/^3.*/& c3/' >"$tmp/hdr.dwant"
check "threads taking turns: each thread's samples, their periods and times" \
	cmp "$tmp/hdr.dwant" "$tmp/hdr.dump"
# numbers at the bounds of the one-pass readers of ids and times: a
# pid of 20 digits, a tid and a time's seconds padded with zeros past 19
# digits (read as the numbers they are)
{
	hdr_s 'prog 12345678901234567890/1 000000000000000000003.5: 10 cpu-clock: '
	hdr_s 'prog 7/0000000000000000000008 3.6: 10 cpu-clock: '
} >"$tmp/num.txt"
"$PROFCONV" dump -q "$tmp/num.txt" | grep -A2 '^profiles\|^trace p' |
	grep -v '^contexts\|^--' >"$tmp/num.dump"
printf '%s\n' 'profiles 2' \
	'p0 [RANK 0 phys=12345678901234567890(not hw)] [THREAD 0 phys=1(not hw)]' \
	'p1 [RANK 1 phys=7(not hw)] [THREAD 0 phys=8(not hw)]' 'trace p0 1' \
	'3500000000 c3' 'trace p1 1' '3600000000 c3' >"$tmp/num.want"
check "ids of 20 digits and times padded past 19: the numbers they are" \
	cmp "$tmp/num.want" "$tmp/num.dump"
mkdir -p "$tmp/bad2"
hb=0
for l in 'x 1.5: 7/8 3.000040: 10 cpu-clock: ' 'prog abc 3.000041: 10 cpu-clock: '; do
	hb=$((hb + 1))
	{ cat "$tmp/hdr.txt"; hdr_s "$l"; } >"$tmp/bad2/hdr-bad$hb.txt"
done
{
	for i in 1 2 3; do cand_h 1 1.0$i; cand_f 40100$i a+0x$i; cand_bcd; echo; done
	cand_h 1 1.04; cand_f 401004 a+0x4; cand_f 402010 b+0x10; cand_f 403010 c+0x10
	printf '\tzz1 d (/bin/x)\n\n'
} >"$tmp/bad2/cand-bad.txt"
bad_inputs "$tmp/bad2" <<'LIST'
cand-bad.txt cand-bad.txt:23: a stack frame that does not start with an address
hdr-bad1.txt hdr-bad1.txt:53: not a perf script sample: no process or thread id before the time in 'x 1.5: 7/8
hdr-bad2.txt hdr-bad2.txt:53: not a perf script sample: no process or thread id before the time in 'prog abc
LIST
if ! sanitized && /usr/bin/time -f %M true >/dev/null 2>&1; then
	# the smaller of two runs each: the heap grows in huge pages of 2 MB
	# (pc_memory_init), so one run's peak may land a page above another's
	# (15.1-16.0 MB for the same input); the 135,000 samples more kept at
	# even 24 bytes each would add 3.2 MB
	for k in 1 10; do
		for r in 1 2; do
			PROFCONV_TRACE_SPILL=65536 /usr/bin/time -f %M -o "$tmp/kb$k.$r" "$PROFCONV" \
				convert -q "$tmp/big$k.txt" -t callgrind -o "$tmp/big$k.$r.out"
		done
	done
	a=$(cat "$tmp/kb1.1" "$tmp/kb1.2" | sort -n | head -1)
	b=$(cat "$tmp/kb10.1" "$tmp/kb10.2" | sort -n | head -1)
	check "peak at 10x the samples ($((b / 1024)) MB) within 3 MB of 1x ($((a / 1024)) MB)" \
		test "$b" -le $((a + 3072))
else
	skip "peak memory: needs GNU time and a build without sanitizers"
fi

# the heap in huge pages (pc_memory_init): 10 MB of generated text
# (bench/gen_perf.pl) to folded faults in less than a quarter of its
# peak in 4 KiB pages (7,300 faults of 31 MB at 100 MB before: its
# tables grow page by page; then 2,100, its 10 MB 1,100-1,400 of 14 MB;
# now 1,000 and 330-460, most of them the program's start: the model's
# table of contexts in huge pages, the read buffer in the heap, the heap
# not trimmed for the writer). Where the kernel gives no transparent
# huge pages (or a sanitizer's allocator runs), SKIP.
thp=/sys/kernel/mm/transparent_hugepage/enabled
if sanitized || ! /usr/bin/time -f %R true >/dev/null 2>&1; then
	skip "page faults: needs GNU time and a build without sanitizers"
elif ! grep -q '\[always\]\|\[madvise\]' "$thp" 2>/dev/null; then
	skip "page faults: no transparent huge pages here ($thp)"
else
	perl "$top_srcdir/bench/gen_perf.pl" 10 >"$tmp/gen10.txt" 2>/dev/null
	/usr/bin/time -f '%R %M' -o "$tmp/pf" "$PROFCONV" convert -q -j1 \
		"$tmp/gen10.txt" -t folded -o "$tmp/gen10.folded"
	set -- $(tail -n 1 "$tmp/pf")
	check "10 MB of text to folded: $1 page faults (of 4 KiB) below a quarter of the peak ($(($2 / 1024)) MB)" \
		test $(($1 * 4 * 4)) -lt "$2"
fi

# 7. a recording made here: perf record -g of gzip (SKIP where perf may
# not record: perf_event_paranoid, a container without perf_event)
if ! command -v perf >/dev/null; then
	skip "perf record: needs perf (Debian: linux-perf)"
elif ! perf record -q -g -o "$tmp/rec.data" -- true >"$tmp/rec.err" 2>&1; then
	skip "perf record: perf_event is not allowed here ($(head -1 "$tmp/rec.err"))"
else
	head -c 3000000 "$D/gzip.txt" >"$tmp/in"
	limited 120 perf record -q -F 999 -g -o "$tmp/rec.data" -- gzip -c "$tmp/in" >/dev/null 2>"$tmp/rec.err"
	"$PROFCONV" convert -q "$tmp/rec.data" -t folded --min-width=0 -o "$tmp/rec.folded"
	perf report -i "$tmp/rec.data" --stdio --no-children --sort sym -g none \
		-F period,sym >"$tmp/self" 2>/dev/null
	check "perf record -g gzip: self values = perf report's" \
		python3 "$J/perf_report.py" self "$tmp/rec.folded" "$tmp/self"
	if [ -n "$sc" ]; then
		perf script -i "$tmp/rec.data" >"$tmp/rec.txt" 2>/dev/null
		"$PROFCONV" convert -q "$tmp/rec.txt" -t folded --min-width=0 -o "$tmp/rec2.folded"
		perl "$sc" "$tmp/rec.txt" >"$tmp/rec.sc" 2>/dev/null
		check "perf record -g gzip: folded = stackcollapse-perf.pl's" \
			python3 "$J/perf_folded.py" "$tmp/rec2.folded" "$tmp/rec.sc"
	else
		skip "perf record: folded = stackcollapse-perf.pl: $NO_SC"
	fi
fi
done_testing
