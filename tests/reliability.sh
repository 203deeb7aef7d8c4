#!/bin/sh
# Never lose a user's data, never hang: the replace path, hostile names
# and bytes, pipes, endless lines, empty inputs, interrupted and killed
# runs. One check per way things went wrong before (issue 9).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
CG="$TD/callgrind"
V4="$SHARED/hpctoolkit-data/v4-small.d"
run() { "$@" >"$tmp/out" 2>"$tmp/err"; }
has() { grep -q -- "$1" "$tmp/err"; }

# --- 1. --force never deletes what profconv did not write ---
"$PROFCONV" convert -q "$CG/small.main.out" -o "$tmp/base.d" || exit 1
old="$tmp/old.d"
if [ -d "$V4" ]; then
	cp -r "$V4" "$old" && chmod -R u+w "$old"
	sum_before=$(cd "$old" && cat meta.db profile.db LICENSE.data | cksum)
	run "$PROFCONV" convert --force "$CG/small.main.out" -o "$old"
	rc=$?
	sum_after=$(cd "$old" && cat meta.db profile.db LICENSE.data 2>/dev/null | cksum)
	if [ $rc -eq 1 ] && has "LICENSE.data" && has "not replacing it" &&
		[ "$sum_before" = "$sum_after" ]; then
		ok "--force onto a database with a foreign file: refused, names it, old intact"
	else
		not_ok "--force onto v4-small.d: exit $rc"; sed 's/^/# /' "$tmp/err"
	fi
	ls "$tmp" | grep -q 'old.d.tmp-' && not_ok "temporary left behind" ||
		ok "no temporary left behind"
else
	skip "v4-small.d needs ../shared/hpctoolkit-data"
	skip "v4-small.d needs ../shared/hpctoolkit-data"
fi
# hpcprof's companions go with the database they belong to
rm -rf "$old" && cp -r "$tmp/base.d" "$old" && mkdir "$old/src" &&
	echo 'int main(void) { return 0; }' >"$old/src/a.c" && : >"$old/FORMATS.md"
run "$PROFCONV" convert --force "$CG/prog.default.out" -o "$old"
if [ $? -eq 0 ] && [ ! -e "$old/src" ] && [ ! -e "$old/FORMATS.md" ] &&
	"$PROFCONV" check --strict "$old" >/dev/null 2>&1; then
	ok "--force replaces a database with hpcprof's companions"
else
	not_ok "--force with companions"; sed 's/^/# /' "$tmp/err"; ls -R "$old" | sed 's/^/# /'
fi
# a refused output is known before the input is read
run "$PROFCONV" convert "$tmp/does-not-exist" -o "$old"
rc=$?
if [ $rc -eq 1 ] && has "output exists" && ! has "does-not-exist"; then
	ok "an existing output is refused before the input is read"
else
	not_ok "output check comes first: exit $rc"; sed 's/^/# /' "$tmp/err"
fi
run "$PROFCONV" convert "$CG/small.main.out" -o "/nonexistent-dir/x.d"
rc=$?
[ $rc -eq 1 ] && has "nonexistent-dir: cannot write there" &&
	ok "an unwritable output directory is refused up front" ||
	{ not_ok "unwritable output: exit $rc"; sed 's/^/# /' "$tmp/err"; }

# --- 2. names that are not UTF-8 ---
printf 'events: Ir\351\nfn=main\n1 5\n' >"$tmp/latin1.out"
run "$PROFCONV" convert -q "$tmp/latin1.out" -o "$tmp/latin1.d"
rc=$?
if [ $rc -eq 0 ] && "$PROFCONV" check --strict "$tmp/latin1.d" >/dev/null 2>&1 &&
	grep -q 'metric: Ir\\xE9$' "$tmp/latin1.d/metrics/default.yaml" &&
	"$PROFCONV" check --values "$tmp/latin1.d" | grep -q '^total	Ir\\xE9	5$'; then
	ok "a metric name that is not UTF-8 is written escaped (\\xE9) and checks"
else
	not_ok "non-UTF-8 metric name: exit $rc"; sed 's/^/# /' "$tmp/err"
fi
printf 'events: Ir\nfn=caf\351\377\n1 5\n' >"$tmp/latin1fn.out"
run "$PROFCONV" convert -q "$tmp/latin1fn.out" -o "$tmp/latin1fn.d" &&
	"$PROFCONV" check --values "$tmp/latin1fn.d" | grep -q 'caf\\xE9\\xFF	5$' &&
	ok "a function name that is not UTF-8 is escaped in meta.db" ||
	{ not_ok "non-UTF-8 function name"; sed 's/^/# /' "$tmp/err"; }

# --- 4. id tuple kinds the format does not define ---
if [ -d "$V4" ]; then
	k="$tmp/kind.d"; cp -r "$V4" "$k" && chmod -R u+w "$k"
	p=$(od -An -tu8 -j 40 -N 8 "$k/profile.db" | tr -d ' ')
	printf '\311' | dd of="$k/profile.db" bs=1 seek=$((p + 8)) conv=notrunc 2>/dev/null
	run "$PROFCONV" convert "$k" -o "$tmp/kind-out.d"
	rc=$?
	[ $rc -eq 1 ] && has "profile.db@0x.*id tuple kind 201" && [ ! -e "$tmp/kind-out.d" ] &&
		ok "an id tuple kind meta.db does not name is refused with its offset" ||
		{ not_ok "unknown id kind: exit $rc"; sed 's/^/# /' "$tmp/err"; }
else
	skip "unknown id kind needs ../shared/hpctoolkit-data"
fi

# --- 5. a FIFO never hangs detection ---
mkfifo "$tmp/fifo"
run limited 60 "$PROFCONV" convert "$tmp/fifo" -o "$tmp/fifo.d"
rc=$?
[ $rc -eq 1 ] && has "not a regular file.*-f FORMAT" &&
	ok "a FIFO without -f is refused at once" ||
	{ not_ok "FIFO without -f: exit $rc"; sed 's/^/# /' "$tmp/err"; }
(cat "$CG/small.main.out" >"$tmp/fifo") &
run limited 60 "$PROFCONV" convert -q -f callgrind "$tmp/fifo" -o "$tmp/fifo.d"
rc=$?
wait
[ $rc -eq 0 ] && "$PROFCONV" check "$tmp/fifo.d" >/dev/null 2>&1 &&
	ok "a FIFO with -f callgrind streams" ||
	{ not_ok "FIFO with -f: exit $rc"; sed 's/^/# /' "$tmp/err"; }

# --- 6. a file without newlines stops at the line limit ---
head -c 20000000 /dev/zero >"$tmp/zeros"
run limited 60 "$PROFCONV" convert -f callgrind "$tmp/zeros" -o "$tmp/zeros.d"
rc=$?
[ $rc -eq 1 ] && has "zeros:1: line longer than 4194304 bytes" && has "max-line" &&
	ok "a line longer than 4 MiB is an error naming the limit and --max-line" ||
	{ not_ok "endless line: exit $rc"; sed 's/^/# /' "$tmp/err"; }
printf 'events: Ir\nfn=%0100d\n1 1\n' 0 >"$tmp/long.out"
run "$PROFCONV" dump --max-line=64 "$tmp/long.out"
[ $? -eq 1 ] && has "long.out:2: line longer than 64 bytes" &&
	ok "--max-line lowers the limit" ||
	{ not_ok "--max-line"; sed 's/^/# /' "$tmp/err"; }

# --- 7. nothing to convert is an error ---
: >"$tmp/empty.out"
run "$PROFCONV" convert -f callgrind "$tmp/empty.out" -o "$tmp/empty.d"
rc=$?
[ $rc -eq 1 ] && has "nothing to convert" && [ ! -e "$tmp/empty.d" ] &&
	ok "an empty input alone is an error, nothing written" ||
	{ not_ok "empty input: exit $rc"; sed 's/^/# /' "$tmp/err"; }
# a profile that measured nothing (events, no cost line) is valid: an
# empty output and a note (issue "Every producer of the seed formats")
printf 'events: Ir\nfn=main\n' >"$tmp/nocost.out"
run "$PROFCONV" convert "$tmp/nocost.out" -o "$tmp/nocost.d"
[ $? -eq 0 ] && has "nocost.out: no costs: it measured nothing" &&
	"$PROFCONV" check "$tmp/nocost.d" >/dev/null 2>&1 &&
	ok "an input without costs: an empty database and a note" ||
	{ not_ok "no costs"; sed 's/^/# /' "$tmp/err"; }
run "$PROFCONV" convert "$tmp/empty.out" "$CG/small.main.out" -o "$tmp/some.d"
[ $? -eq 0 ] && has "empty.out: empty file, skipped" &&
	ok "an empty input beside one with data: a warning" ||
	{ not_ok "empty beside data"; sed 's/^/# /' "$tmp/err"; }

# --- 8. control bytes from inputs are escaped ---
printf 'events: Ir\nfn=a\nzz\033]0;owned\007 1\n' >"$tmp/ctl.out"
run "$PROFCONV" convert -f callgrind "$tmp/ctl.out" -o "$tmp/ctl.d"
if [ $? -eq 1 ] && has 'zz\\x1b\]0;owned\\x07 1' && ! LC_ALL=C grep -q "$(printf '\033')" "$tmp/err"; then
	ok "control bytes in error messages are shown as \\xHH"
else
	not_ok "control bytes"; od -c "$tmp/err" | head -5 | sed 's/^/# /'
fi

# --- 10. 'positions:' after 'events:' ---
printf 'events: Ir\npositions: line\nfn=a\n1 7\n' >"$tmp/pos.out"
run "$PROFCONV" convert "$tmp/pos.out" -o "$tmp/pos.d"
[ $? -eq 0 ] && "$PROFCONV" check --values "$tmp/pos.d" | grep -q '^total	Ir	7$' &&
	ok "'positions:' after 'events:' reads (as KCachegrind does)" ||
	{ not_ok "positions after events"; sed 's/^/# /' "$tmp/err"; }

# --- 11. a file-size limit (ulimit -f) ---
# SIGXFSZ is ignored: a write past the limit fails with EFBIG, said in
# one line naming the output (not its temporary), exit 1, nothing left
# behind; an output that takes no traces keeps (and spills) none, so a
# small pprof output is written whatever the input's traces (issue 57)
gen="$top_builddir/bench/gen_ovni"
# limit KB JOBS OUT [OPTION]: the conversion of the generated trace
# under ulimit -f of KB kilobytes, its long traces spilled (16 bytes on)
# (ulimit -f counts blocks of 1024 bytes in bash, of 512 in dash: the
# shell's, measured once)
blk=$( (ulimit -f 1; head -c 4096 /dev/zero >"$tmp/blk") 2>/dev/null; wc -c <"$tmp/blk")
limit() {
	k=$(($1 * 1024 / blk)) j=$2 o=$3; shift 3
	rm -rf "$tmp/lim" && mkdir "$tmp/lim"
	(ulimit -f "$k" && PROFCONV_TRACE_SPILL=16 exec "$PROFCONV" convert \
		"$j" "$@" "$tmp/gen" -o "$tmp/lim/$o") >/dev/null 2>"$tmp/err"
}
# only the output (or its --split files) in the directory
only() { ! ls -A "$tmp/lim" | grep -v "^$1\$" | grep -qv -- '-0[0-9]'; }
if [ -x "$gen" ] && "$gen" "$tmp/gen" 2 100000 >/dev/null; then
	bad=""
	for j in -j1 -j2; do
		for o in x.pb.gz x.folded x.svg callgrind.out.x x.json x.d \
			"callgrind.out.s --split" "s.pb.gz --split"; do
			limit 3 $j $o
			rc=$?
			name=${o%% *}
			if [ $rc -eq 0 ] && only "$name" && ! grep -q 'error\|spill' "$tmp/err"; then
				:
			elif [ $rc -eq 1 ] && only "$name" && [ "$(grep -c 'error:' "$tmp/err")" -eq 1 ] &&
				grep -q "error: $tmp/lim/$name[-0-9/a-z.]*: cannot write: File too large" "$tmp/err"; then
				:
			else
				bad="$bad $o $j (exit $rc)"
				sed 's/^/# /' "$tmp/err" | head -3; ls "$tmp/lim" | sed 's/^/# /'
			fi
		done
	done
	[ -z "$bad" ] && ok "ulimit -f 3: every output at -j1 and -j2 is written or one error naming it, exit 1, nothing left" ||
		not_ok "ulimit -f 3:$bad"
	limit 2 -j1 x.pb.gz
	rc=$?
	PROFCONV_TRACE_SPILL=16 "$PROFCONV" convert -q -j1 "$tmp/gen" -o "$tmp/ref.pb.gz"
	[ $rc -eq 0 ] && ! has spill && cmp -s "$tmp/lim/x.pb.gz" "$tmp/ref.pb.gz" &&
		ok "ulimit -f 2: a pprof output of $(wc -c <"$tmp/ref.pb.gz") bytes spills no trace it does not use" ||
		{ not_ok "ulimit -f 2, pprof: exit $rc"; sed 's/^/# /' "$tmp/err"; }
	# readers (-j2, -j4) whose temporary files cannot be written read
	# again as one reader (-j1 needs none): one warning, then the -j1
	# path, whose 1.5 kB output does not fit 1 kB either: its one error
	# naming the output, nothing left (the full disk below shows the
	# -j1 output written where it fits)
	bad=""
	for j in -j2 -j4; do
		limit 1 $j x.pb.gz
		rc=$?
		[ $rc -eq 1 ] && [ -z "$(ls -A "$tmp/lim")" ] &&
			[ "$(grep -c . "$tmp/err")" -eq 2 ] &&
			grep -q "warning: $tmp/lim: cannot write a temporary file: File too large; reading again with one reader" "$tmp/err" &&
			grep -q "error: $tmp/lim/x.pb.gz: cannot write: File too large" "$tmp/err" ||
			{ bad="$bad $j (exit $rc)"; sed 's/^/# /' "$tmp/err"; }
	done
	[ -z "$bad" ] && ok "ulimit -f 1: readers whose temporary files cannot be written read again as one (a warning), then the one error of -j1, nothing left" ||
		not_ok "ulimit -f 1, readers:$bad"
	# a full disk (a small tmpfs, as root): room for the output of -j1
	# and 20 kB more; -j2 and -j4 read again as one reader when the
	# readers' files take the output's room
	mnt="$tmp/mnt"
	mkdir "$mnt"
	if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=8m tmpfs "$mnt" 2>/dev/null; then
		"$PROFCONV" convert -q -j1 "$tmp/gen" -o "$mnt/ref.d"
		need=$(du -sk "$mnt/ref.d" | cut -f1)
		cp -r "$mnt/ref.d" "$tmp/ref.d" && rm -rf "$mnt/ref.d"
		head -c $(((8192 - need - 20) * 1024)) /dev/zero >"$mnt/filler"
		bad=""
		for j in -j1 -j2 -j4; do
			rm -rf "$mnt/x.d"
			"$PROFCONV" convert -q $j "$tmp/gen" -o "$mnt/x.d" 2>"$tmp/err"
			rc=$?
			[ $rc -eq 0 ] && diff -r "$tmp/ref.d" "$mnt/x.d" >/dev/null &&
				[ "$(ls -A "$mnt" | wc -l)" -eq 2 ] ||
				{ bad="$bad $j (exit $rc)"; sed 's/^/# /' "$tmp/err"; }
		done
		umount "$mnt"
		[ -z "$bad" ] && ok "a full disk with room for the output: -j1, -j2 and -j4 write it" ||
			not_ok "a full disk:$bad"
	else
		skip "a full disk: mounts a small tmpfs, which needs root"
	fi
else
	for i in 1 2 3 4; do
		skip "a file-size limit: needs bench/gen_ovni (make check builds it)"
	done
fi

# --- 9. interrupted and killed runs ---
if [ -n "${PC_VALGRIND:-}" ]; then
	for t in SIGINT "kill -9" "stale temporary"; do
		skip "$t: timed loops run without valgrind"
	done
	done_testing
	exit
fi
# a conversion long enough to be hit in every phase
big="$CG/py-json.out.gz"
bigopts="--instructions --max-contexts=150000"
"$PROFCONV" convert -q $bigopts "$big" -o "$tmp/big.d" || exit 1
start=$(date +%s%N)
"$PROFCONV" convert -q --force $bigopts "$big" -o "$tmp/big.d"
ms=$((($(date +%s%N) - start) / 1000000))
ref=$(cd "$tmp/big.d" && cat meta.db profile.db cct.db metrics/default.yaml | cksum)
# (each point is a run of half a second of CPU: the quick check takes
# one SIGINT in two and one kill in three, the extras all)
ints="1 2 3 4 5 6" kills="1 2 3 4 5 6 7 8 9 10"
heavy "SIGINT at 3 more points and kill -9 at 7 more" || { ints="2 4 6" kills="2 5 8"; }
leftover=0
for i in $ints; do
	"$PROFCONV" convert -q --force $bigopts "$big" -o "$tmp/big.d" &
	pid=$!
	sleep "$(awk -v t="$ms" -v i="$i" 'BEGIN { printf "%.3f", t * i / 7000 }')"
	kill -INT $pid 2>/dev/null
	wait $pid
	left=$(ls -d "$tmp"/big.d.tmp-* 2>/dev/null | wc -l)
	leftover=$((leftover + left))
done
[ "$leftover" -eq 0 ] && ok "SIGINT at $(echo $ints | wc -w) points of a ${ms} ms run leaves no temporary" ||
	{ not_ok "SIGINT left $leftover temporaries"; ls "$tmp" | sed 's/^/# /'; }
damaged=0
for i in $kills; do
	"$PROFCONV" convert -q --force $bigopts "$big" -o "$tmp/big.d" &
	pid=$!
	sleep "$(awk -v t="$ms" -v i="$i" 'BEGIN { srand(i); printf "%.3f", t * (i - 1 + rand()) / 9000 }')"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	now=$(cd "$tmp/big.d" 2>/dev/null && cat meta.db profile.db cct.db metrics/default.yaml | cksum)
	if [ "$now" != "$ref" ] || ! "$PROFCONV" check --strict "$tmp/big.d" >/dev/null 2>&1; then
		damaged=$((damaged + 1))
		cp -r "$tmp/big.d" "$tmp/big.d.ref-$i" 2>/dev/null
	fi
	# what a killed run leaves is named by the next run, never removed
	rm -rf "$tmp"/big.d.tmp-* "$tmp"/big.d.old-*
done
[ "$damaged" -eq 0 ] && ok "kill -9 at $(echo $kills | wc -w) points of a ${ms} ms --force run: the database stays whole" ||
	not_ok "kill -9 damaged the database $damaged times"
mkdir "$tmp/big.d.tmp-AbC123"
run "$PROFCONV" convert --force "$CG/small.main.out" -o "$tmp/big.d"
[ $? -eq 0 ] && has "big.d.tmp-AbC123: left by an interrupted run" && [ -d "$tmp/big.d.tmp-AbC123" ] &&
	ok "a stale temporary is named in a warning, not removed" ||
	{ not_ok "stale temporary"; sed 's/^/# /' "$tmp/err"; }
done_testing
