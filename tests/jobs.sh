#!/bin/sh
# -j N: writer threads (and their sort) beside the importer, an old
# database's profiles read on several threads, cct.db merged by ranges;
# the output is the same byte for byte for every N, and a failure
# halfway through is the same one line, with nothing left behind.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
# a generated old database: 24 threads x about 3,000 contexts, traces
old="$tmp/old"
"$top_builddir/bench/gen_legacy" "$old" 24 3000 >/dev/null
# -j2 and -j7 too but in the quick check (tests/run.sh; .ci/run's
# extras run this script whole under ThreadSanitizer)
JS="2 3 7"
heavy "each input at -j2 and -j7 too" || JS=3
same() { # name input...: v4 and Callgrind outputs, and what is said
	# (warnings, in reading order), at -j1 and each of JS
	name=$1; shift
	for to in hpctoolkit callgrind; do
		rm -rf "$tmp/j1"
		if ! "$PROFCONV" convert -j1 -t $to -o "$tmp/j1" "$@" 2>"$tmp/said1"; then
			not_ok "$name -> $to: -j1 fails"; continue
		fi
		bad=
		for j in $JS; do
			rm -rf "$tmp/jn"
			"$PROFCONV" convert -j$j -t $to -o "$tmp/jn" "$@" 2>"$tmp/saidn" &&
				diff -r "$tmp/j1" "$tmp/jn" >/dev/null &&
				sed "s|$tmp/jn|$tmp/j1|" "$tmp/saidn" | cmp -s - "$tmp/said1" ||
				bad="$bad $j"
		done
		warned=$(grep -c "warning:" "$tmp/said1")
		if [ -z "$bad" ]; then
			ok "$name -> $to: -j$(echo $JS | sed 's/ /, -j/g') write what -j1 writes ($(du -sk "$tmp/j1" | cut -f1) kB, $warned warnings)"
		else
			not_ok "$name -> $to: differs at -j$bad"
		fi
	done
}
# same_error NAME J WANT INPUT...: the inputs fail at -jJ with -j1's
# one line (which says WANT), exit 1 and no output
same_error() {
	name=$1 j=$2 want=$3
	shift 3
	for k in 1 $j; do
		"$PROFCONV" convert -q -j$k -o "$tmp/out$k.d" "$@" 2>"$tmp/err$k"
		echo "exit $?" >>"$tmp/err$k"
		sed -i "s|out$k|OUT|g" "$tmp/err$k"
	done
	if cmp -s "$tmp/err1" "$tmp/err$j" && grep -q "^exit 1$" "$tmp/err$j" &&
		grep -q "$want" "$tmp/err$j" && [ "$(wc -l <"$tmp/err$j")" -eq 2 ] &&
		[ -z "$(ls "$tmp" | grep '^out')" ]; then
		ok "$name: the -j1 message, nothing left: $(head -1 "$tmp/err$j" | sed "s|$tmp/||")"
	else
		not_ok "$name"; cat "$tmp/err1" "$tmp/err$j" | sed 's/^/# /'
	fi
}
same "old database, 24 threads" "$old"
"$PROFCONV" convert -q -j1 -o "$tmp/old.d" "$old"
same "its v4 copy" "$tmp/old.d"
# the readers of a v4 database at -j8, to folded stacks (the case where
# ThreadSanitizer found a race: tests/extras.sh runs this script so)
"$PROFCONV" convert -q -j1 -o "$tmp/f1.folded" "$tmp/old.d" &&
	"$PROFCONV" convert -q -j8 -o "$tmp/f8.folded" "$tmp/old.d" &&
	cmp -s "$tmp/f1.folded" "$tmp/f8.folded"
check "its v4 copy -> folded: -j8 writes what -j1 writes" test $? -eq 0
# a trace sample of profile 20 naming a context meta.db lacks: made
# before the tree is frozen, with the id reading would give it
cp -r "$tmp/old.d" "$tmp/tid.d"
perl -e '
	open(my $f, "+<", $ARGV[0]) or die; binmode $f;
	sub rd { my ($at, $n) = @_; seek($f, $at, 0); read($f, my $b, $n); $b }
	my $e = unpack("Q<", rd(unpack("Q<", rd(0x18, 8)), 8)) + 0x18 * 20;
	seek($f, unpack("Q<", rd($e + 8, 8)) + 8, 0); print $f pack("L<", 0x7ffffff0);
' "$tmp/tid.d/trace.db"
"$PROFCONV" dump -q "$tmp/tid.d" | grep -q "context 2147483632 not in meta.db" &&
	same "v4 copy, a trace naming a context meta.db lacks" "$tmp/tid.d" ||
	not_ok "the patched trace sample was not read"
"$PROFCONV" convert -q -j1 -o "$tmp/thr.d" "$TD"/callgrind/threads.out-0*
same "3 Callgrind threads' v4 database" "$tmp/thr.d"
# a Callgrind file's metrics rounded on several threads at once (a flow
# each): 3 events whose shares the flows move, and 9 (cache simulation)
"$top_builddir/bench/gen_callgrind" 400 60 >"$tmp/gen.out"
same "Callgrind, 3 events, 400 functions" "$tmp/gen.out"
same "Callgrind, 9 events (cache simulation)" "$TD/callgrind/prog.cachesim.out"
# ovni: a reader on a thread for each share of the streams, the shares
# merged in order (doc/design.md, "ovni streams on threads"): a
# generated trace of 5 threads, the hand-made ones (split: a share that
# starts at a thread whose tasks were made by the thread before it, and
# an unknown event warned of once; more: warnings)
"$top_builddir/bench/gen_ovni" "$tmp/ovni" 5 20000 >/dev/null
same "ovni, generated, 5 threads" "$tmp/ovni"
for d in split more multi/ovni good; do
	same "ovni $d" "$TD/ovni/$d"
done
if [ -d "$SHARED/ovni-data" ]; then
	# (the quick check takes the newest layout, the extras each)
	set -- "$SHARED"/ovni-data/*/ovni
	heavy "the real ovni traces of the older layouts at -j" || shift $(($# - 1))
	for d in "$@"; do
		same "ovni $(basename "$(dirname "$d")")" "$d"
	done
else
	skip "real ovni traces at -j: $NO_SHARED_OVNI"
fi
# Callgrind files of a program's threads (valgrind --separate-threads):
# a share of the files for each reader, merged in order as the
# importer finds functions from one file to the next; with trees cut
# (a note each): the thread files at 8,000 contexts, cc1plus's twice
same "Callgrind thread files (3)" "$TD"/callgrind/threads.out-0*
same "Callgrind thread files of small (3)" "$TD"/callgrind/small.threads.out-0*
# as valgrind leaves them: the empty base file beside its thread files,
# a note once whatever -j (it came once per reader)
mkdir -p "$tmp/tf"
: >"$tmp/tf/callgrind.out.77"
for k in 1 2 3; do cp "$TD/callgrind/small.threads.out-0$k" "$tmp/tf/callgrind.out.77-0$k"; done
same "valgrind's thread files with their empty base file" "$tmp"/tf/callgrind.out.77*
same "Callgrind thread files with cut trees (--max-contexts=8000)" --max-contexts=8000 "$TD"/callgrind/threads.out-0*
if heavy "Callgrind thread files with cut trees at the default bound (cc1plus x 2, 16 conversions)"; then
	for i in 1 2; do gzip -dc "$TD/callgrind/cc1plus.out.gz" >"$tmp/cc.out-0$i"; done
	same "Callgrind thread files with cut trees (cc1plus x 2)" "$tmp"/cc.out-0*
	rm -f "$tmp"/cc.out-0*
fi
same "tiny old database 2.0" "$TD/hpctoolkit-legacy/tiny-2.0"
if heavy "the tiny old database 4.0 and hatchet's cpi at -j"; then
	same "tiny old database 4.0" "$TD/hpctoolkit-legacy/tiny-4.0"
	have_shared && same "v4-hatchet_cpi" "$SHARED"/hpctoolkit-data/v4-hatchet_cpi
fi
if have_shared; then
	same "v4-pipit-ping-pong" "$SHARED"/hpctoolkit-data/v4-pipit-ping-pong
else
	skip "real v4 databases at -j: $NO_SHARED"
fi
# profile 20 of the v4 copy made bad (its context index's second entry
# past its values): the importer fails while the writer thread has
# profiles in hand; the same message as without the thread, no output
cp -r "$tmp/old.d" "$tmp/cut.d"
perl -e '
	open(my $f, "+<", $ARGV[0]) or die; binmode $f;
	sub rd { my ($at, $n) = @_; seek($f, $at, 0); read($f, my $b, $n); $b }
	my $infos = unpack("Q<", rd(0x18, 8));
	my $e = unpack("Q<", rd($infos, 8)) + 0x30 * 21; # profile 20 (0: summary)
	my $pctx = unpack("Q<", rd($e + 0x18, 8));
	seek($f, $pctx + 12 + 4, 0); print $f pack("Q<", 1 << 40);
' "$tmp/cut.d/profile.db"
same_error "v4 copy, profile 20 bad at -j2" 2 startIndex "$tmp/cut.d"
# the same in the old database, whose profiles -j reads on several
# threads: profile 20's context index made bad (big-endian)
cp -r "$old" "$tmp/cutold"
bad_old_profile "$tmp/cutold" 20
same_error "old database, profile 20 bad at -j3" 3 "value index" "$tmp/cutold"
# an ovni stream cut inside an event in the last share (thread 1005 of
# 5, the third reader's at -j3; the second at -j2)
cp -r "$tmp/ovni" "$tmp/cutovni"
f="$tmp/cutovni/loom.bench.0/proc.1000/thread.1005/stream.obs"
head -c 100007 "$f" >"$f.cut" && mv "$f.cut" "$f"
same_error "ovni, the last thread's stream cut, at -j2" 2 "runs past the end" "$tmp/cutovni"
same_error "ovni, the last thread's stream cut, at -j3" 3 "runs past the end" "$tmp/cutovni"
# ... and the first's: the other readers stop, none of their messages
rm -rf "$tmp/cutovni"
cp -r "$tmp/ovni" "$tmp/cutovni"
f="$tmp/cutovni/loom.bench.0/proc.1000/thread.1001/stream.obs"
head -c 100007 "$f" >"$f.cut" && mv "$f.cut" "$f"
same_error "ovni, the first thread's stream cut, at -j3" 3 "runs past the end" "$tmp/cutovni"
# the second of three Callgrind thread files bad at its line 25
mkdir "$tmp/badcg"
cp "$TD"/callgrind/small.threads.out-0* "$tmp/badcg/"
sed -i '25s/.*/calls=x -8/' "$tmp/badcg/small.threads.out-02"
same_error "Callgrind thread files, the second bad, at -j2" 2 ":25: 'calls='" "$tmp"/badcg/small.threads.out-0*
same_error "Callgrind thread files, the second bad, at -j3" 3 ":25: 'calls='" "$tmp"/badcg/small.threads.out-0*
"$PROFCONV" convert -q -j0 -o "$tmp/x.d" "$old" 2>"$tmp/err"
check "-j0 is refused" grep -q "^profconv: bad --jobs '0' (1 to 4096)" "$tmp/err"
done_testing
