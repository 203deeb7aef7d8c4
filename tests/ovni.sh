#!/bin/sh
# ovni runtime traces: the hand-made traces of testdata/ovni (values
# worked out by hand, see its README), one clear error per damaged trace,
# and, with ../shared/ovni-data, every real sample layout (L0-L3) judged
# against ovniemu's own Paraver output: the time of each thread in each
# state of each channel (tests/ovni_prv.awk on thread.prv) equals what
# the written v4 database says (tests/ovni_db.awk on its dump), to the ns.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
D="$TD/ovni"
OD="$SHARED/ovni-data"

# --- hand-made: values by hand (1000..4000 ns, see make-fixtures.pl) ---
"$PROFCONV" dump -q "$D/good" >"$tmp/good.dump"
DUMP="$tmp/good.dump"
ctx() { # name: the context id of the function named so in $DUMP
	f=$(sed -n "s/^f\([0-9]*\) \"$1\" .*/\1/p" "$DUMP")
	sed -n "s/^c\([0-9]*\) .* fn=f$f\$/\1/p" "$DUMP"
}
check "thread 11: 300 ns in MPI_Init() under the mark 'init'" grep -q "^p0 c$(ctx 'MPI_Init()') m0 300$" "$tmp/good.dump"
check "thread 11: 500 ns paused (OHp..OHr) under 'compute'" grep -q "^p0 c$(ctx '\[paused\]') m1 500$" "$tmp/good.dump"
check "thread 11: 1000 ns running in 'compute'" grep -q "^p0 c$(ctx compute) m0 1000$" "$tmp/good.dump"
check "thread 12: the task created on thread 11 is named by its type label (jumbo VYc)" \
	grep -q "^p1 c$(ctx my_task) m0 500$" "$tmp/good.dump"
check "thread 12: MPI_Send() inside the task, 300 ns" grep -q "^p1 c$(ctx 'MPI_Send()') m0 300$" "$tmp/good.dump"
check "thread 11 trace: the mark, MPI_Init(), back, ..., ctx 0 at OHe" \
	sh -c "sed -n '/^trace p0/,/^trace p1/p' '$tmp/good.dump' | tr '\n' ' ' | grep -q 'trace p0 9 1000 c2 1200 c$(ctx init) 1400 c$(ctx 'MPI_Init()') 1700 c$(ctx init) 2000 c$(ctx compute) 2500 c$(ctx '\[paused\]') 3000 c$(ctx compute) 3500 c2 4000 c0'"
# the other kinds of events (testdata/ovni/README, "more")
"$PROFCONV" dump "$D/more" >"$tmp/more.dump" 2>"$tmp/more.err"
DUMP="$tmp/more.dump"
check "nanos6 task named by its 6Yc type label: 150 ns running" grep -q "^p0 c$(ctx solver) m0 150$" "$tmp/more.dump"
check "nanos6 6Tp..6Tr: 50 ns in [task paused]" grep -q "^p0 c$(ctx '\[task paused\]') m0 50$" "$tmp/more.dump"
check "OpenMP worksharing named by its POc type label: 100 ns" grep -q "^p0 c$(ctx loop_a) m0 100$" "$tmp/more.dump"
check "OM= sets the mark: init 100 ns, compute 100 ns" sh -c "grep -q '^p0 c$(ctx init) m0 100$' '$tmp/more.dump' && grep -q '^p0 c$(ctx compute) m0 100$' '$tmp/more.dump'"
check "cooling 50, paused 100, warming 50 ns (time not running)" sh -c "
	grep -q '^p0 c$(ctx '\[cooling\]') m1 50$' '$tmp/more.dump' && grep -q '^p0 c$(ctx '\[paused\]') m1 100$' '$tmp/more.dump' &&
	grep -q '^p0 c$(ctx '\[warming\]') m1 50$' '$tmp/more.dump'"
# off its CPU (KCO 1100..KCI 1300) the thread keeps its state, as ovniemu
# keeps it Running: 200 ns of time running at [thread], and of its own
# metric, time off CPU (m3)
check "KCO..KCI: 200 ns time off CPU at [thread], still time running (ovniemu's Running)" sh -c "
	grep -q '^m3 \"time off CPU\"' '$tmp/more.dump' && grep -q '^p0 c2 m3 200$' '$tmp/more.dump' &&
	! grep -q 'off CPU\]' '$tmp/more.dump'"
check "[thread] 700 ns (200 off its CPU): the unordered region's backward clock costs nothing" grep -q "^p0 c2 m0 700$" "$tmp/more.dump"
check "a warning for the clock going back inside OU[..OU]" grep -q 'stream.obs@0x176: clock goes back inside an unordered region' "$tmp/more.err"
check "an unknown event is warned about (once) and skipped" grep -q 'stream.obs@0x18e: unknown event Zzz (unknown model) skipped' "$tmp/more.err"
# marks are channels of their own (testdata/ovni/README, "marks"): their
# pops and sets need not nest with the other frames
"$PROFCONV" dump "$D/marks" >"$tmp/marks.dump" 2>"$tmp/marks.err"
awk -f "$top_srcdir/tests/ovni_paths.awk" "$tmp/marks.dump" | sort >"$tmp/marks.paths"
cat >"$tmp/marks.want" <<'EOF'
[thread] time running 100
[thread]/Iter 3 entries 1
[thread]/Iter 3 time running 100
[thread]/Iter 4 time running 50
[thread]/Iter 4/compute time running 50
[thread]/Phase 5 time running 50
[thread]/Phase 5/Iter 3 entries 1
[thread]/Phase 5/Iter 3 time running 50
[thread]/Phase 5/Iter 3/compute entries 1
[thread]/Phase 5/Iter 3/compute time running 50
[thread]/Phase 5/Iter 4 entries 1
[thread]/Phase 5/Iter 4/compute time running 50
[thread]/Phase 5/MPI_Init() time running 100
[thread]/init entries 1
[thread]/init time running 100
[thread]/init/Phase 5 entries 1
[thread]/init/Phase 5 time running 100
[thread]/init/Phase 5/MPI_Init() entries 1
[thread]/init/Phase 5/MPI_Init() time running 100
EOF
check "marks: a pop below other frames takes the mark out and keeps them (MPI_Init() goes on under 'Phase 5' alone), an OM= below another mark replaces it in place; the frames kept are not entered again" \
	sh -c "cmp '$tmp/marks.want' '$tmp/marks.paths' || diff '$tmp/marks.want' '$tmp/marks.paths' | sed 's/^/# /'"
check "marks: the trace follows every change" sh -c "sed -n '/^trace p0/,\$p' '$tmp/marks.dump' | awk 'NR > 1 { printf \"%s \", \$1 }' | grep -q '^100 200 300 400 500 600 650 700 750 800 850 900 1000 \$'"
check "marks: no warning (a mark set by OM= and still set at OHe is no open region)" test ! -s "$tmp/marks.err"
# two looms (hosts), three processes with MPI ranks, four threads
# (testdata/ovni/README, "multi")
"$PROFCONV" dump "$D/multi" >"$tmp/multi.dump" 2>"$tmp/multi.err"
DUMP="$tmp/multi.dump"
check "multi: one profile per thread: NODE by loom, RANK from the metadata, THREAD by order in its process" sh -c "
	grep '^p[0-9] \[' '$DUMP' | sed 's/ phys=[0-9]*(not hw)//g' | tr '\n' ';' |
	grep -q '^p0 \[NODE 0\] \[RANK 0\] \[THREAD 0\];p1 \[NODE 0\] \[RANK 0\] \[THREAD 1\];p2 \[NODE 0\] \[RANK 1\] \[THREAD 0\];p3 \[NODE 1\] \[RANK 2\] \[THREAD 0\];\$'"
check "multi: THREAD's physical id is the TID (13 for rank 1)" grep -q '^p2 .*\[THREAD 0 phys=13(not hw)\]$' "$DUMP"
check "multi: MPI_Send() 50, 100, 200, 300 ns on the four threads" sh -c "
	c=$(ctx 'MPI_Send()'); for pv in 'p0 50' 'p1 100' 'p2 200' 'p3 300'; do
	set -- \$pv; grep -q \"^\$1 c\$c m0 \$2\\\$\" '$DUMP' || exit 1; done"
check "multi: the clock offset of host beta (500) moves only its thread" sh -c "
	sed -n '/^trace p3/{n;p}' '$DUMP' | grep -q '^1100 c2$' && sed -n '/^trace p2/{n;p}' '$DUMP' | grep -q '^1000 c2$'"
check "multi: check --strict passes on the database" sh -c "'$PROFCONV' convert -q '$D/multi' -o '$tmp/multi.d' && '$PROFCONV' check --strict '$tmp/multi.d'"
# a stream of the draft specification: no header
"$PROFCONV" dump -q "$D/draft" >"$tmp/draft.dump"
DUMP="$tmp/draft.dump"
check "a header-less stream (the draft's form) reads: MPI_Init() 100 ns" grep -q "^p0 c$(ctx 'MPI_Init()') m0 100$" "$tmp/draft.dump"
# model letters by layout: M is MPI in L1, libovni 1.0's OpenMP in L0
"$PROFCONV" dump "$D/l1" >"$tmp/l1.dump" 2>"$tmp/l1.err"
DUMP="$tmp/l1.dump"
check "layout L1: M is MPI (MPI_Init() 100 ns, MPI_Test() 50 ns, no warning)" sh -c "grep -q '^p0 c$(ctx 'MPI_Init()') m0 100$' '$tmp/l1.dump' &&
	grep -q '^p0 c$(ctx 'MPI_Test()') m0 50$' '$tmp/l1.dump' && ! test -s '$tmp/l1.err'"
"$PROFCONV" dump "$D/l0" >"$tmp/l0.dump" 2>"$tmp/l0.err"
DUMP="$tmp/l0.dump"
check "layout L0: M is 1.0's OpenMP: MT[..MT] is its task mode (50 ns, module openmp-1.0)" sh -c "
	grep -q '^p0 c$(ctx 'task mode') m0 50$' '$tmp/l0.dump' && grep -q '^f[0-9]* \"task mode\" module=M[0-9]*' '$tmp/l0.dump' &&
	grep -q '^M[0-9]* \"openmp-1.0\"' '$tmp/l0.dump' && ! grep -q MPI_ '$tmp/l0.dump' && grep -q '^p0 c2 m0 250$' '$tmp/l0.dump'"
check "layout L0: MUi and MUI are no events of 1.0's OpenMP: warned about once each and skipped" sh -c "
	grep -q 'thread.51@0x24: unknown event MUi (M is libovni 1.0.s OpenMP model in this layout) skipped' '$tmp/l0.err' && test \$(wc -l <'$tmp/l0.err') -eq 2"
# a stream cut inside MPI_Recv: closed at its last clock, with a warning
"$PROFCONV" dump "$D/cut" >"$tmp/cut.dump" 2>"$tmp/cut.err"
check "cut stream: a warning names the thread's stream and the open frame" \
	grep -q "thread.21/stream.obs: the stream ends .*'MPI_Recv()'" "$tmp/cut.err"
check "cut stream: MPI_Recv() runs to the last clock (250 ns)" grep -q ' m0 250$' "$tmp/cut.dump"
# the loom directory itself, and clock-offsets.txt beside the looms
mkdir -p "$tmp/off/ovni"
ln -s "$(cd "$D/good" && pwd)/loom.host.fix" "$tmp/off/ovni/loom.host.fix"
printf 'rank hostname offset_median offset_mean offset_std\n0 host 1000.4 1000.4 0.0\n' >"$tmp/off/ovni/clock-offsets.txt"
"$PROFCONV" dump -q "$tmp/off" >"$tmp/off.dump"
check "clock-offsets.txt: every clock of host 'host' moves by the median (1000)" \
	sh -c "sed -n '/^trace p0/{n;p}' '$tmp/off.dump' | grep -q '^2000 c2$'"
check "clock-offsets.txt beside a loom given alone applies too" \
	sh -c "'$PROFCONV' dump -q '$tmp/off/ovni/loom.host.fix' | sed -n '/^trace p0/{n;p}' | grep -q '^2000 c2$'"
grep -v '^title\|^[0-9]* c' "$tmp/off.dump" >"$tmp/a"; grep -v '^title\|^[0-9]* c' "$tmp/good.dump" >"$tmp/b"
check "clock offsets change times only" cmp "$tmp/a" "$tmp/b"
"$PROFCONV" dump -q "$D/good/loom.host.fix" | grep -v '^title' >"$tmp/a"
grep -v '^title' "$tmp/good.dump" >"$tmp/b"
check "a loom.* directory reads as the whole trace" cmp "$tmp/a" "$tmp/b"
"$PROFCONV" identify "$D/good" >"$tmp/id"
check "identify: ovni" grep -q -- '-> ovni$' "$tmp/id"

# --- damaged traces: one line with the file and offset, exit 1, nothing
# written ---
bad_inputs "$D/bad" <<'LIST'
truncated-event stream.obs@0x24: truncated event: 7 bytes left
wrong-magic stream.obs@0x0: not an ovni stream
wrong-version stream.obs@0x4: stream version 2
payload-past-end stream.obs@0x24: event OM\[: payload of 12 bytes runs past the end
metadata-not-json stream.json@0x2e: metadata is not JSON
metadata-no-tid stream.json: metadata lacks the integer key 'ovni.tid'
clock-backwards stream.obs@0x30: clock goes backwards: 1400 after 1500
jumbo-4gb stream.obs@0x24: jumbo event VYc of 4294967295 bytes runs past the end
empty-stream stream.obs@0x0: empty stream
no-streams loom.host.fix: a loom with no streams
mismatched-exit stream.obs@0x30: exit event MCB does not match the enter MCb: the open frame is 'MPI_Init()'
mark-pop-value stream.obs@0x3c: mark pop of 'compute' (type 7) does not match: another value of its type is open
model-minor-newer stream.json: the trace requires the nosv model 2.9.0; profconv knows 2.7.0
model-major stream.json: the trace requires the nosv model 3.0.0; profconv knows 2.7.0
LIST

# --- libovni 1.14's own traces (testdata/ovni/emu/README) ---
# a task paused inside an API call or a blocking section: each thread's
# time per channel and state equals ovniemu's (by value where a trace
# has several looms: Paraver numbers their threads otherwise)
EM="$TD/ovni/emu"
for t in nosv-join nosv-pause-in-submit nanos6-blocking nosv-kernel-cs; do
	if ! "$PROFCONV" convert -q "$EM/$t/ovni" -o "$tmp/$t.d" 2>"$tmp/err"; then
		not_ok "libovni 1.14 $t converts"; sed 's/^/# /' "$tmp/err"; continue
	fi
	awk -f "$top_srcdir/tests/ovni_prv.awk" "$EM/$t/ovniemu-1.14/thread.pcf" \
		"$EM/$t/ovniemu-1.14/thread.prv" | cut -f2- | sort >"$tmp/$t.prv"
	"$PROFCONV" dump -q "$tmp/$t.d" | awk -f "$top_srcdir/tests/ovni_db.awk" |
		cut -f2- | sort >"$tmp/$t.db"
	if [ -s "$tmp/$t.prv" ] && cmp -s "$tmp/$t.prv" "$tmp/$t.db"; then
		ok "libovni 1.14 $t: $(wc -l <"$tmp/$t.prv") (channel, state) times = ovniemu's, to the ns"
	else
		not_ok "libovni 1.14 $t: times differ from ovniemu's (< prv, > db)"
		diff "$tmp/$t.prv" "$tmp/$t.db" | head -10 | sed 's/^/# /'
	fi
done
check "nosv-kernel-cs: off its CPU the thread stays Running; the kernel's channel is time off CPU" \
	grep -q "kernel-cs	Context switch: Out of the CPU	989782$" "$tmp/nosv-kernel-cs.db"
check "nosv-join: the time paused inside nosv_wait() is the call's, below [task paused]" \
	grep -q "API: Wait	720412$" "$tmp/nosv-join.db"
# what ovniemu refuses: one line, where and what, exit 1, nothing left
while read -r t want; do
	"$PROFCONV" convert "$EM/$t/ovni" -o "$tmp/bad.d" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q -- "stream.obs@0x[0-9a-f]*: $want" "$tmp/err" && [ ! -e "$tmp/bad.d" ]; then
		ok "libovni 1.14 $t refused: $(sed 's/.*stream.obs@/stream.obs@/' "$tmp/err")"
	else
		not_ok "libovni 1.14 $t: exit $rc"; sed 's/^/# /' "$tmp/err"
	fi
done <<'LIST'
bad-nosv-double-execute nosv task 2 runs inside nosv task 1, which is not paused
bad-nosv-nest-same-task nosv task 1 runs inside itself (it is paused here)
bad-nosv-require-missing event VYc of the nosv model, which the trace does not require
bad-nanos6-nested-tasks nanos6 task 1 runs inside itself (it is running here)
bad-nanos6-rerun-task nanos6 task 1 runs again after it ended
bad-nosv-off-cpu event VYc of the nosv model while the thread is off its CPU
bad-nosv-pause-parallel pause of nosv task 1, a parallel task (VTC), whose bodies cannot pause
bad-mpi-nested MPI_Init_thread() entered while the thread is in it
LIST

# the loom's CPUs, which ovniemu checks before any event: one line
# naming the stream.json (or the loom), exit 1, nothing left
while read -r t want; do
	"$PROFCONV" convert "$EM/$t/ovni" -o "$tmp/bad.d" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q -- "$want" "$tmp/err" && [ ! -e "$tmp/bad.d" ] &&
		[ -z "$(ls "$tmp" | grep '^bad.d')" ]; then
		ok "libovni 1.14 $t refused: $(sed "s|$EM/||g" "$tmp/err")"
	else
		not_ok "libovni 1.14 $t: exit $rc"; sed 's/^/# /' "$tmp/err"
	fi
done <<'LIST'
bad-duplicated-cpu-index thread.10117/stream.json: the CPU index 0 is given to phyid 1 here and to phyid 0 in .*thread.10113/stream.json
bad-no-cpus ovni/loom.vm.0: no stream of the loom gives its CPUs
LIST
# what ovniemu refuses and profconv converts with a warning that says
# what is wrong and what is kept (a thread that crashed writes no CPUs:
# its loom is not refused for that)
while read -r t want; do
	"$PROFCONV" convert "$EM/$t/ovni" -o "$tmp/warn.d" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q -- "$want" "$tmp/err" && [ -d "$tmp/warn.d" ]; then
		ok "libovni 1.14 $t: converted with a warning: $(grep -- "$want" "$tmp/err" | sed "s|$EM/||g")"
	else
		not_ok "libovni 1.14 $t: exit $rc"; sed 's/^/# /' "$tmp/err"
	fi
	rm -rf "$tmp/warn.d"
done <<'LIST'
warn-thread-crash stream.obs: the stream ends while the thread runs (no OHe: the thread crashed or its stream was cut); it is ended at its last clock, its time up to there kept
warn-empty-stream stream.obs: an empty stream (no event: the thread crashed or was cut before its first flush; ovniemu refuses the trace); its profile is kept, empty
warn-clockgate loom.vm.1/.*stream.obs: the stream starts 2.00 h after .*loom.vm.0/.*: a clock gate of more than an hour, which ovniemu refuses .*; the clocks are kept as they are
LIST
check "a warning for the clock going back inside OU[..OU] says what is kept" grep -q 'stream.obs@0x176: clock goes back inside an unordered region (1350 after 1400; ovnisort would have sorted it); the events are kept, taken at the previous clock' "$tmp/more.err"
# and the other ways a loom's CPUs can be wrong, on a copy of good/
cpus_case() { # NAME WANT SED-ON-THREAD-12'S-STREAM.JSON
	rm -rf "$tmp/cpus" && cp -r "$TD/ovni/good" "$tmp/cpus" && chmod -R u+w "$tmp/cpus"
	sed -i "$3" "$tmp/cpus/loom.host.fix/proc.100/thread.12/stream.json"
	"$PROFCONV" convert "$tmp/cpus" -o "$tmp/bad.d" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q -- "thread.12/stream.json: $2" "$tmp/err" && [ ! -e "$tmp/bad.d" ]; then
		ok "a loom's CPUs, $1: refused ($(sed "s|$tmp/||g" "$tmp/err"))"
	else
		not_ok "a loom's CPUs, $1: exit $rc"; sed 's/^/# /' "$tmp/err"
	fi
}
cpus_case "one phyid of two indices" "the CPU of phyid 0 has the index 1 here and 0 in" \
	's/"index": 0, "phyid": 0/"index": 1, "phyid": 0/'
cpus_case "an index past the CPUs" "the CPU of phyid 5 has the index 7, past the loom's 2 CPUs" \
	's/"index": 0, "phyid": 0/"index": 7, "phyid": 5/'
cpus_case "an empty list" "'ovni.loom_cpus' is empty" 's/"loom_cpus": \[[^]]*\]/"loom_cpus": []/'
cpus_case "a negative index" "'ovni.loom_cpus' entry 0 has a negative index (-1)" \
	's/"index": 0, "phyid": 0/"index": -1, "phyid": 3/'

# --- the real samples of every layout ---
if [ ! -d "$OD" ]; then
	skip "needs ../shared/ovni-data (real ovni traces beside the project)"
	done_testing; exit
fi
for s in "$OD"/v*/; do
	s=${s%/}; sn=$(basename "$s")
	emu=$(ls -d "$s"/ovniemu-*)
	if ! "$PROFCONV" convert -q "$s" -o "$tmp/$sn.d" 2>"$tmp/err"; then
		not_ok "$sn converts"; sed 's/^/# /' "$tmp/err"; continue
	fi
	check "$sn: check --strict passes (with trace.db)" sh -c "'$PROFCONV' check --strict '$tmp/$sn.d' && test -s '$tmp/$sn.d/trace.db'"
	awk -f "$top_srcdir/tests/ovni_prv.awk" "$emu/thread.pcf" "$emu/thread.prv" | sort >"$tmp/$sn.prv"
	"$PROFCONV" dump -q "$tmp/$sn.d" >"$tmp/$sn.dump"
	awk -f "$top_srcdir/tests/ovni_db.awk" "$tmp/$sn.dump" | sort >"$tmp/$sn.db"
	if [ -s "$tmp/$sn.prv" ] && cmp -s "$tmp/$sn.prv" "$tmp/$sn.db"; then
		ok "$sn: $(wc -l <"$tmp/$sn.prv") (thread, channel, state) times from ovniemu's thread.prv = the database's, to the ns ($(cut -f2 "$tmp/$sn.prv" | sort -u | tr '\n' ' '))"
	else
		not_ok "$sn: times differ from ovniemu's (< prv, > db)"
		diff "$tmp/$sn.prv" "$tmp/$sn.db" | head -10 | sed 's/^/# /'
	fi
	# trace.db: samples in time order, never two 0s in a row, and the
	# time between samples per context = the profile's values there
	if awk '
		/^values/ { inv = 1; next }
		/^traces/ { inv = 0; next }
		inv && / m[01] / { p = $1; c = $2; val[p, c] += $4; next }
		/^trace p/ { p = $2; havelast = 0; next }
		/^[0-9]+ c[0-9]+$/ {
			if (havelast && $1 < last) { print "time goes back at " $1; bad = 1 }
			if (havelast && lastc == "c0" && $2 == "c0") { print "two 0 samples"; bad = 1 }
			if (havelast && lastc != "c0") tr[p, lastc] += $1 - last
			last = $1; lastc = $2; havelast = 1
		}
		END {
			for (k in val) if (val[k] != tr[k]) { split(k, a, SUBSEP); print a[1], a[2], val[k], tr[k]; bad = 1 }
			for (k in tr) if (!(k in val)) { split(k, a, SUBSEP); print a[1], a[2], "trace only", tr[k]; bad = 1 }
			exit bad
		}' "$tmp/$sn.dump" >"$tmp/tr.out"; then
		ok "$sn: trace.db in time order; time per context from the samples = the profile's values"
	else
		not_ok "$sn: trace.db and profile disagree"; head -5 "$tmp/tr.out" | sed 's/^/# /'
	fi
done
# the same forms of input
"$PROFCONV" dump -q "$OD/v3-mark-mpi-2t/ovni" | grep -v '^title' >"$tmp/a"
"$PROFCONV" dump -q "$OD/v3-mark-mpi-2t" | grep -v '^title' >"$tmp/b"
check "the ovni/ directory and its parent read the same" cmp "$tmp/a" "$tmp/b"
# the same program in layouts L2 and L3: the same tree (paths of names)
paths() { awk '
	/^M[0-9]+ "/ { m[substr($1, 2)] = $2 }
	/^f[0-9]+ "/ { x = $0; sub(/^f[0-9]+ /, "", x); sub(/ offset=.*/, "", x); f[substr($1, 2)] = x }
	/^c[0-9]+ parent=/ { id = substr($1, 2); p = $2; sub(/parent=c/, "", p); par[id] = p
		n = $0; sub(/.* fn=f/, "", n); nm[id] = (n ~ /^[0-9]+$/) ? f[n] : "entry" }
	END { for (c in par) { s = ""; for (x = c; x != 0; x = par[x]) s = nm[x] "/" s; print s } }' "$1" | sort; }
paths "$tmp/v2-mark-mpi-2t.dump" >"$tmp/a"; paths "$tmp/v3-mark-mpi-2t.dump" >"$tmp/b"
check "layouts L2 and L3 of the same program: the same tree ($(wc -l <"$tmp/a") contexts)" cmp "$tmp/a" "$tmp/b"
# byte order: the L3 nosv sample rewritten as a big-endian machine writes
mkdir -p "$tmp/swap/ovni"
cp -r "$OD/v3-nosv-2t/ovni/loom.vm.nosv" "$tmp/swap/ovni/"
chmod -R u+w "$tmp/swap"
for f in "$tmp"/swap/ovni/loom.*/proc.*/thread.*/stream.obs; do
	perl "$top_srcdir/tests/ovni_swap.pl" "$OD/ovnievents-1.14.0.tsv" "$f" "$f.x" && mv "$f.x" "$f"
done
"$PROFCONV" dump -q "$tmp/swap" | grep -v '^title' >"$tmp/a"
"$PROFCONV" dump -q "$OD/v3-nosv-2t" | grep -v '^title' >"$tmp/b"
if ! cmp -s "$tmp/swap/ovni/loom.vm.nosv/proc.32631/thread.32632/stream.obs" \
	"$OD/v3-nosv-2t/ovni/loom.vm.nosv/proc.32631/thread.32632/stream.obs" && cmp -s "$tmp/a" "$tmp/b"; then
	ok "streams of the other byte order (jumbo and payloads swapped) read the same"
else
	not_ok "byte-swapped streams differ"
fi
# ovni -> Callgrind: KCachegrind loads it without a message
"$PROFCONV" convert -q "$OD/v3-nosv-2t" -o "$tmp/callgrind.out.nosv"
run=$(awk -F'\t' '$2 == "state" && $3 == "Running" { s += $4 } END { print s }' "$tmp/v3-nosv-2t.prv")
check "Callgrind: summary time_running = ovniemu's Running time of both threads ($run ns)" \
	grep -q "^summary: $run 0 [0-9]" "$tmp/callgrind.out.nosv"
if have_kc; then
	# a control: the harness sees a load problem when there is one
	printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n3 10\nnot a line\n' >"$tmp/callgrind.out.broken"
	msgs=$(kc "$tmp/callgrind.out.nosv")
	if ! kc "$tmp/callgrind.out.broken" | grep -q 'Invalid line'; then
		not_ok "KCachegrind harness does not see load problems"
	elif [ -z "$msgs" ]; then ok "KCachegrind loads the ovni Callgrind file cleanly (and reports a broken control)"
	else not_ok "KCachegrind: $msgs"; fi
else
	skip "kcachegrind not installed"
fi
# a mark's label with \u0000 is cut there, with a warning
cp -r "$TD/ovni/marks" "$tmp/nulmk" && chmod -R u+w "$tmp/nulmk"
sed -i 's/"init"/"in\\u0000it"/' "$tmp/nulmk/loom.host.fix/proc.100/thread.61/stream.json"
"$PROFCONV" convert -o "$tmp/nulmk.d" "$tmp/nulmk" 2>"$tmp/err"
check "a label with a NUL: converted, one warning naming the file" \
	grep -q "thread.61/stream.json: a mark's title or label holds a NUL character (\\\\u0000): it is cut there" "$tmp/err"
done_testing
