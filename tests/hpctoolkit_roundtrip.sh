#!/bin/sh
# v4 -> profconv -> v4 keeps the model exactly: the dump of the source
# and of the result are identical, for every real v4 database in
# ../shared and for databases we write from Callgrind. Also: bad v4
# databases get one-line errors with file@offset, exit status 1.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
roundtrip() { # name db
	rm -rf "$tmp/rt.d"
	if ! "$PROFCONV" convert -q -o "$tmp/rt.d" "$2" 2>"$tmp/err"; then
		not_ok "$1: convert"; sed 's/^/# /' "$tmp/err"; return
	fi
	check "$1: result passes check" "$PROFCONV" check "$tmp/rt.d"
	# (the dumps compared are made by the plain binary: the v4
	# reader under test already ran under memcheck in the convert)
	"$PROFCONV_REF" dump -q "$2" >"$tmp/a"
	"$PROFCONV_REF" dump -q "$tmp/rt.d" >"$tmp/b"
	if cmp -s "$tmp/a" "$tmp/b"; then
		ok "$1: dump identical after v4 -> v4 ($(grep -c '' "$tmp/a") lines)"
	else
		not_ok "$1: dumps differ"; diff "$tmp/a" "$tmp/b" | head -10 | sed 's/^/# /'
	fi
}
if have_shared; then
	for d in "$SHARED"/hpctoolkit-data/v4-*; do
		roundtrip "$(basename "$d")" "$d"
	done
	# real databases keep their traces
	"$PROFCONV" dump -q "$SHARED/hpctoolkit-data/v4-small.d" >"$tmp/small"
	check "v4-small.d: 13 trace samples read" grep -q '^trace p0 13$' "$tmp/small"
	check "v4-small.d: first sample time and context" grep -q '^1714021984008891000 c0$' "$tmp/small"
	check "v4-small.d: elided point values placed in their lines" grep -q "^p0 c8 m0 0.605316$" "$tmp/small"
else
	skip "real v4 databases round trip: $NO_SHARED"
fi
for f in small.main.out small.spin-instr.out prog.cachesim.out; do
	"$PROFCONV" convert -q -o "$tmp/$f.d" "$TD/callgrind/$f"
	roundtrip "callgrind $f -> v4" "$tmp/$f.d"
done
"$PROFCONV" convert -q -o "$tmp/thr.d" "$TD"/callgrind/threads.out-0*
roundtrip "3 threads -> v4" "$tmp/thr.d"
# ten programs at once: each profile has a tenth of the contexts, so
# cct.db's merge finds them by a heap, not by looking at every profile
# (check compares cct.db with profile.db); their trees cut at 20,000
# contexts (cc1plus's and py-json's at the default bound were 64 MiB
# each to write, read and dump twice)
(cd "$TD/callgrind" && "$PROFCONV" convert -q --max-contexts=20000 -o "$tmp/ten.d" cc1plus.out.gz \
	cpp.default.out.gz cpp.instr.out.gz prog.default.out py-json.out.gz \
	small.main.out small.spin-instr.out prog.cachegrind.out \
	prog.instr-jumps.out small.main-sepcallers.out)
roundtrip "10 programs -> v4" "$tmp/ten.d"

# The point scope: left out of whole-number metrics (no reader shows
# it), derived back from execution exactly; kept for the call counts
# (fractional shares) and with --point. Both databases read back to the
# same model, write the same Callgrind file, and a copy keeps its scopes.
S="$top_builddir/tests/v4_scopes"
pointless() { # name input...
	name=$1; shift
	rm -rf "$tmp/np.d" "$tmp/p.d" "$tmp/np2.d"
	"$PROFCONV" convert -q -o "$tmp/np.d" "$@" &&
		"$PROFCONV" convert -q --point -o "$tmp/p.d" "$@" &&
		"$PROFCONV" convert -q -o "$tmp/np2.d" "$tmp/np.d" || {
		not_ok "$name: convert"; return; }
	"$S" -m "$tmp/np.d" >"$tmp/np.m"; "$S" -m "$tmp/p.d" >"$tmp/p.m"
	"$S" -m "$tmp/np2.d" >"$tmp/np2.m"
	whole=$(grep -cv "	point	" "$tmp/np.m")
	if [ "$whole" -gt 0 ] && ! grep -qv "	point	" "$tmp/p.m" &&
		cmp -s "$tmp/np.m" "$tmp/np2.m"; then
		ok "$name: $whole of $(grep -c '' "$tmp/np.m") metrics without point, all with --point, the copy keeps them"
	else
		not_ok "$name: scopes"; paste "$tmp/np.m" "$tmp/p.m" | sed 's/^/# /'
	fi
	"$PROFCONV" dump -q "$tmp/np.d" >"$tmp/a"; "$PROFCONV" dump -q "$tmp/p.d" >"$tmp/b"
	np=$(stat -c %s "$tmp/np.d/profile.db"); p=$(stat -c %s "$tmp/p.d/profile.db")
	if cmp -s "$tmp/a" "$tmp/b" && [ "$np" -lt "$p" ]; then
		ok "$name: point values derived exactly ($(grep -c '^p' "$tmp/a") values), profile.db $np < $p bytes"
	else
		not_ok "$name: dumps differ or no smaller ($np, $p)"; diff "$tmp/a" "$tmp/b" | head -5 | sed 's/^/# /'
	fi
	"$PROFCONV" convert -q -t callgrind -o "$tmp/np.cg" "$tmp/np.d" &&
		"$PROFCONV" convert -q -t callgrind -o "$tmp/p.cg" "$tmp/p.d"
	check "$name: the same Callgrind file from either" cmp "$tmp/np.cg" "$tmp/p.cg"
	rm -f "$tmp/np.cg" "$tmp/p.cg"
}
pointless "callgrind small.main.out" "$TD/callgrind/small.main.out"
pointless "callgrind 3 threads" "$TD"/callgrind/threads.out-0*
pointless "dcpi" "$TD/dcpi/db"
pointless "ovni" "$TD/ovni/good/loom.host.fix"
"$PROFCONV" convert -q --point -t callgrind -o "$tmp/x.cg" "$TD/callgrind/small.main.out" 2>"$tmp/err"
check "--point is for HPCToolkit output" grep -q "^profconv: --point is for HPCToolkit output" "$tmp/err"

# bad databases
good="$tmp/small.main.out.d"
bad_db() { # name expected-message-part: $c is a copy to damage first
	name=$1; want=$2; shift 2
	c="$tmp/bad-$name.d"; rm -rf "$c"; cp -r "$good" "$c"; "$@"
	"$PROFCONV" dump -q "$c" >/dev/null 2>"$tmp/err"; rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err"; then
		ok "bad v4 $name: $(cat "$tmp/err")"
	else
		not_ok "bad v4 $name: exit $rc"; sed 's/^/# /' "$tmp/err"
	fi
}
trunc_prof() { truncate -s 100 "$c/profile.db"; }
bad_db truncated "profile.db@0x5c: footer '_prof.db' missing (truncated file?)" trunc_prof
zero_meta() { : >"$c/meta.db"; }
bad_db empty-meta "meta.db@0x0: file too short for its header" zero_meta
no_prof() { rm "$c/profile.db"; }
bad_db no-profile "profile.db: No such file or directory" no_prof
big_ptr() { printf '\377\377\377\377' | dd of="$c/meta.db" bs=1 seek=$((0x48 + 4)) conv=notrunc 2>/dev/null; }
bad_db pointer "meta.db@0x48: section 3 runs past the end of the file" big_ptr
# the pre-release 4.0 layout (hpcprof of early 2022; hpcviewer's
# quicksilver): a database rewritten into it by tests/prerelease.pl reads
# back with every stored scope as the final layout's (function, lex_aware
# from function, execution; the root's values on the main entry)
S="$top_builddir/tests/v4_scopes"
"$PROFCONV" convert -q -o "$tmp/final.d" "$TD/callgrind/small.main.out" &&
	perl "$top_srcdir/tests/prerelease.pl" "$tmp/final.d" "$tmp/pre.d" &&
	"$PROFCONV" convert -o "$tmp/pre-out.d" "$tmp/pre.d" 2>"$tmp/err"
rc=$?
"$S" "$tmp/final.d" | sort >"$tmp/a" && "$S" "$tmp/pre-out.d" 2>/dev/null | sort >"$tmp/b"
"$S" -l "$tmp/final.d" | sort >>"$tmp/a" && "$S" -l "$tmp/pre-out.d" 2>/dev/null | sort >>"$tmp/b"
if [ $rc -eq 0 ] && grep -q 'pre-release 4.0 layout' "$tmp/err" &&
	awk -f "$top_srcdir/tests/scopes_cmp.awk" "$tmp/a" "$tmp/b" >"$tmp/cmp"; then
	ok "the pre-release 4.0 layout reads as the final one: $(tail -1 "$tmp/cmp")"
else
	not_ok "pre-release layout: exit $rc"; sed 's/^/# /' "$tmp/err"; head -5 "$tmp/cmp" | sed 's/^/# /'
fi
done_testing
