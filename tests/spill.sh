#!/bin/sh
# Long traces spill to a file as they grow (src/trace.c, pc_trace_room):
# the outputs are the same byte for byte whether a trace stays in memory
# (PROFCONV_TRACE_SPILL=0), spills every few samples (16 bytes) or in
# pieces that a reader's 64 KiB buffer cuts mid-sample (1,000 bytes); at
# -j1 and -j2 (a second reader, whose share is fed from its spool);
# and a spill that cannot be made is one warning, the trace kept in
# memory.
. "$(dirname "$0")/lib.sh"
bin="$top_builddir/profconv"

# inputs with traces: ovni fixtures, a generated ovni trace of 2 threads
# x 100,000 events (400 KB of trace each), its v4 copy, the real ones
set -- "$TD/ovni/good" "$TD/ovni/multi" "$TD/ovni/emu/nosv-kernel-cs"
if [ -x "$top_builddir/bench/gen_ovni" ]; then
	"$top_builddir/bench/gen_ovni" "$tmp/gen" 2 100000 >/dev/null
	PROFCONV_TRACE_SPILL=0 "$bin" convert -q -o "$tmp/gen.d" "$tmp/gen"
	set -- "$@" "$tmp/gen" "$tmp/gen.d"
else
	skip "a generated long trace: needs bench/gen_ovni (make check builds it)"
fi
if have_shared; then
	set -- "$@" "$SHARED/hpctoolkit-data/v4-pipit-ping-pong" \
		"$SHARED/hpctoolkit-data/legacy-pipit-ping-pong" \
		"$SHARED/ovni-data/v3-nosv-2t"
else
	skip "the real traces: $NO_SHARED"
fi

# out SPILL JOBS IN OUT: the conversion's output and messages
out() {
	PROFCONV_TRACE_SPILL=$1 "$bin" convert -q "$2" -o "$4" "$3" >"$4.log" 2>&1
	echo "exit $?" >>"$4.log"
}
# the quick check spills every 1,000 bytes at -j1 and every 16 at -j2,
# the extras both at both
SP1="16 1000" SP2="16 1000"
heavy "each input spilled every 16 bytes at -j1 and every 1,000 at -j2" || { SP1=1000 SP2=16; }
for in in "$@"; do
	name=${in#"$TD/"}
	name=${name#"$SHARED/"}
	name=${name#"$tmp/"}
	for ext in d json; do
		for j in -j1 -j2; do
			out 0 $j "$in" "$tmp/mem.$ext"
			same=yes
			sps=$SP1
			[ $j = -j2 ] && sps=$SP2
			for sp in $sps; do
				out $sp $j "$in" "$tmp/sp.$ext"
				diff -r "$tmp/mem.$ext" "$tmp/sp.$ext" >/dev/null &&
					cmp -s "$tmp/mem.$ext.log" "$tmp/sp.$ext.log" ||
					same="no (spill $sp)"
				rm -rf "$tmp/sp.$ext" "$tmp/sp.$ext.log"
			done
			[ "$same" = yes ] && grep -q '^exit 0' "$tmp/mem.$ext.log" &&
				ok "$name -> .$ext $j: the same spilled" ||
				{ not_ok "$name -> .$ext $j: spilled, $same"; sed 's/^/# /' "$tmp/mem.$ext.log" | head -3; }
			rm -rf "$tmp/mem.$ext" "$tmp/mem.$ext.log"
		done
	done
	PROFCONV_TRACE_SPILL=0 "$bin" dump "$in" >"$tmp/mem.dump" 2>&1
	PROFCONV_TRACE_SPILL=16 "$bin" dump "$in" >"$tmp/sp.dump" 2>&1
	check "$name: dump the same spilled" cmp "$tmp/mem.dump" "$tmp/sp.dump"
done

# no spool can be made (standard output's goes to TMPDIR; one reader:
# no share kept): one warning, the same output
if [ -d "$tmp/gen" ]; then
	in="$tmp/gen"
	PROFCONV_TRACE_SPILL=0 "$bin" convert -q -t chrome-trace -o - "$in" >"$tmp/mem.json" 2>"$tmp/mem.err"
	TMPDIR=$tmp/none PROFCONV_TRACE_SPILL=16 "$bin" convert -j1 -t chrome-trace -o - "$in" >"$tmp/sp.json" 2>"$tmp/sp.err"
	rc=$?
	if [ $rc -eq 0 ] && cmp -s "$tmp/mem.json" "$tmp/sp.json" &&
		[ "$(grep -c 'warning: cannot spill a long trace to .*/none: No such file or directory; traces are kept in memory' "$tmp/sp.err")" -eq 1 ]; then
		ok "a spool that cannot be made: one warning, the same output"
	else
		not_ok "a spool that cannot be made: exit $rc"
		sed 's/^/# /' "$tmp/sp.err" | head -3
	fi
fi
done_testing
