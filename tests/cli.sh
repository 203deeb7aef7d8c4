#!/bin/sh
# The command line: help, version, formats, detection, usage errors and
# exit statuses.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
CG="$TD/callgrind"
expect_rc() {
	want=$1; d=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$d (exit $rc)"; else
		not_ok "$d: exit $rc, want $want"; sed 's/^/# /' "$tmp/err" | head -5; fi
}
expect_rc 0 "--help" "$PROFCONV" --help
check "--help lists the commands" grep -q '^  convert' "$tmp/out"
expect_rc 0 "--version" "$PROFCONV" --version
check "--version prints the version" grep -q '^profconv [0-9]' "$tmp/out"
expect_rc 0 "help dump" "$PROFCONV" help dump
expect_rc 0 "formats" "$PROFCONV" formats
check "formats lists callgrind" grep -q '^  callgrind' "$tmp/out"
expect_rc 2 "no arguments" "$PROFCONV"
expect_rc 2 "unknown command" "$PROFCONV" frobnicate x
expect_rc 2 "dump without inputs" "$PROFCONV" dump
expect_rc 2 "bad option" "$PROFCONV" dump --bogus x
expect_rc 2 "bad --max-contexts" "$PROFCONV" dump --max-contexts=0 x
expect_rc 1 "missing input" "$PROFCONV" dump "$tmp/nonexistent"
check "missing input error names the file" grep -q "nonexistent: No such file" "$tmp/err"
expect_rc 0 "identify a callgrind file" "$PROFCONV" identify "$CG/prog.default.out"
check "identify shows the score" grep -q 'callgrind=100 hpctoolkit=0 hpctoolkit-legacy=0 dcpi=0 ovni=0 .*-> callgrind' "$tmp/out"
"$PROFCONV" convert -q -o "$tmp/own.d" "$CG/small.main.out"
expect_rc 0 "identify a v4 database" "$PROFCONV" identify "$tmp/own.d"
check "v4 database detected" grep -q 'hpctoolkit=100 hpctoolkit-legacy=0 dcpi=0 ovni=0 .*-> hpctoolkit' "$tmp/out"
expect_rc 0 "identify a gzipped file" "$PROFCONV" identify "$CG/prog.default.out.gz"
check "gzip probed on its content" grep -q 'callgrind=100' "$tmp/out"
expect_rc 0 "identify a cachegrind file" "$PROFCONV" identify "$CG/prog.cachegrind.out"
echo "hello" >"$tmp/text"
expect_rc 1 "unrecognized input" "$PROFCONV" dump "$tmp/text"
check "unrecognized input says use -f" grep -q 'unrecognized input format (use -f' "$tmp/err"
expect_rc 1 "forced format on a wrong file" "$PROFCONV" dump -f callgrind "$tmp/text"
check "forced error has file:line" grep -q "text:1: unrecognized line 'hello'" "$tmp/err"
expect_rc 2 "unknown -f format" "$PROFCONV" dump -f nope "$CG/prog.default.out"
cp "$CG/small.main.out" "$tmp/callgrind.out.noheader"
expect_rc 0 "valgrind's empty base file beside its thread files: skipped without a warning" "$PROFCONV" dump "$CG/small.threads.out" "$CG/small.threads.out-02"
check "... no warning" test ! -s "$tmp/err"
"$PROFCONV" convert -j2 -o "$tmp/thr2.d" "$CG"/small.threads.out* 2>"$tmp/err"
check "... and convert says so once, in a note, at -j2 too" \
	test "$(grep -c 'small.threads.out: empty, as valgrind --separate-threads leaves it beside its thread files: skipped' "$tmp/err")" -eq 1
cp "$CG/small.threads.out" "$tmp/lonely.out"
"$PROFCONV" dump "$tmp/lonely.out" "$CG/small.main.out" >/dev/null 2>"$tmp/err"
check "another empty input: skipped with a warning" grep -q 'lonely.out: empty file, skipped' "$tmp/err"
expect_rc 0 "-q silences warnings" "$PROFCONV" dump -q "$CG/small.threads.out" "$CG/small.threads.out-02"
check "nothing on stderr with -q" test ! -s "$tmp/err"

# help and the manual cover every command and option
expect_rc 0 "help help" "$PROFCONV" help help
"$PROFCONV" help convert >"$tmp/hc"
missing=""
for opt in --from --to --output --force --stats --split --no-compress \
	--callers --max-contexts --instructions --max-line --quiet; do
	grep -q -- "$opt" "$tmp/hc" || missing="$missing $opt"
done
[ -z "$missing" ] && ok "help convert lists every convert option" ||
	not_ok "help convert lacks:$missing"
missing=""
for word in convert info dump check identify formats help json values \
	strict from to output force stats split 'no\-compress' callers \
	'max\-contexts' instructions 'max\-line' quiet EXAMPLES "SEE ALSO" \
	valgrind callgrind_annotate kcachegrind hpcviewer hpcprof; do
	grep -q -F -- "$word" "$top_srcdir/man/profconv.1" || missing="$missing $word"
done
[ -z "$missing" ] && ok "the manual covers every command, option and peer" ||
	not_ok "man page lacks:$missing"

# one error style for bad options, and options that do not apply
expect_rc 2 "an option of another command" "$PROFCONV" check --force x
check "says which option and command" grep -q "option '--force' does not apply to 'check'" "$tmp/err"
expect_rc 2 "an unknown option" "$PROFCONV" convert --bogus x
check "one line names it" grep -q "^profconv: unknown option '--bogus'" "$tmp/err"
expect_rc 2 "an option without its value" "$PROFCONV" convert x -o
check "says the value is missing" grep -q "option '-o' needs a value" "$tmp/err"
expect_rc 2 "-o x.txt without -t" "$PROFCONV" convert -o "$tmp/x.txt" "$CG/small.main.out"
check "asks for -t" grep -q "rename it or give -t FORMAT ('profconv formats')" "$tmp/err"
# an output name no format has is refused (it wrote a database with
# exit 0): one line naming the known names and -t; a name ending in .d
# or an existing directory is a database, as help convert says
for o in prog.xyz prog.cg prog; do
	expect_rc 2 "-o $o: refused" sh -c "cd '$tmp' && '$PROFCONV' convert -o $o '$CG/small.main.out'"
	check "-o $o: one line listing the names of every output format and -t, nothing written" sh -c "
		grep -q '^profconv: -o $o: no output format has this name (.*); rename it or give -t FORMAT' '$tmp/err' &&
		grep -q '[(,] \*\.d or an existing directory: HPCToolkit[,)]' '$tmp/err' && grep -q '[(,] \*\.svg: SVG flame graph[,)]' '$tmp/err' &&
		[ \$(grep -c '^profconv: ' '$tmp/err') -eq 1 ] && [ ! -e '$tmp/$o' ]"
done
expect_rc 2 "no -o: refused (it wrote profconv.d)" sh -c "cd '$tmp' && '$PROFCONV' convert '$CG/small.main.out'"
check "no -o: says -o OUT chooses the format" sh -c "grep -q 'convert needs -o OUT, whose name chooses the output format (.*svg' '$tmp/err' && [ ! -e '$tmp/profconv.d' ]"
mkdir "$tmp/anydir"
expect_rc 1 "-o an existing directory: a database (refused without --force, as help convert says)" "$PROFCONV" convert -o "$tmp/anydir" "$CG/small.main.out"
check "... refused as an existing output" grep -q "anydir: output exists" "$tmp/err"
expect_rc 0 "-o prog.xyz -t folded: -t chooses" "$PROFCONV" convert -q -t folded -o "$tmp/prog.xyz" "$CG/small.main.out"
# help convert names every output format in its -t list and the name
# that chooses it (svg was missing)
"$PROFCONV" help convert >"$tmp/hc"
"$PROFCONV" formats | sed -n '/^Output formats/,$p' | sed -n 's/^  \([a-z-]*\) .*/\1/p' >"$tmp/outfmts"
missing=""
while read -r f; do
	sed -n '/-t, --to=FORMAT/,/-o, --output/p' "$tmp/hc" | grep -q -w -- "$f" || missing="$missing -t:$f"
done <"$tmp/outfmts"
for name in "'callgrind.out\*'" "'\*.callgrind'" "'\*.pb.gz'" "'\*.pprof'" "'\*.json'" "'\*.folded'" "'\*.svg'" "'\*.d'"; do
	tr '\n' ' ' <"$tmp/hc" | grep -q -- "$name" || missing="$missing $name"
done
[ -s "$tmp/outfmts" ] && [ -z "$missing" ] && ok "help convert: every output format in -t's list, and the names that choose them" ||
	not_ok "help convert lacks:$missing"
# did you mean: the nearest option or command; a file first means
# 'convert' was forgotten; a usage error points to the command's help
expect_rc 2 "--frce" "$PROFCONV" convert --frce -o "$tmp/f.d" "$CG/small.main.out"
check "--frce: did you mean '--force'?, and help convert" sh -c "grep -q \"^profconv: unknown option '--frce'; did you mean '--force'?\" '$tmp/err' && grep -q \"^Try 'profconv help convert'\" '$tmp/err'"
expect_rc 2 "--max-contxts=5" "$PROFCONV" info --max-contxts=5 "$CG/small.main.out"
check "... did you mean '--max-contexts'?" grep -q "did you mean '--max-contexts'?" "$tmp/err"
expect_rc 2 "check --frce" "$PROFCONV" check --frce "$tmp/f.d"
check "... no option of another command suggested" sh -c "! grep -q 'did you mean' '$tmp/err'"
expect_rc 2 "conver" "$PROFCONV" conver "$CG/small.main.out" -o "$tmp/f.d"
check "conver: did you mean 'convert'?" grep -q "unknown command 'conver'; did you mean 'convert'?" "$tmp/err"
expect_rc 2 "a file first" "$PROFCONV" "$CG/small.main.out" -o "$tmp/f.d"
check "a file first: 'convert' forgotten" grep -q "unknown command '.*small.main.out', a file: 'convert' forgotten? (profconv convert .*small.main.out -o OUT)" "$tmp/err"
expect_rc 2 "an option first" "$PROFCONV" -o "$tmp/f.d" "$CG/small.main.out"
check "an option first: the command comes first" grep -q "'-o' before a command: the command comes first" "$tmp/err"
expect_rc 2 "help conver" "$PROFCONV" help conver
check "help conver: did you mean 'convert'?" grep -q "did you mean 'convert'?" "$tmp/err"
expect_rc 2 "--split with a database output" "$PROFCONV" convert --split -o "$tmp/x.d" "$CG/small.main.out"
expect_rc 2 "--stats with a Callgrind output" "$PROFCONV" convert --stats -o "$tmp/callgrind.out.x" "$CG/small.main.out"
expect_rc 2 "-o - with a directory format" "$PROFCONV" convert -t hpctoolkit -o - "$CG/small.main.out"
expect_rc 2 "--split to standard output" "$PROFCONV" convert --split -o - "$CG/small.main.out"
expect_rc 2 "standard input twice" "$PROFCONV" dump - -
"$PROFCONV" convert "$CG/small.main.out" "$tmp/own.d" -o "$tmp/mixed.d" 2>"$tmp/err"
check "mixing input formats warns once, naming them" grep -q "different formats (callgrind, hpctoolkit)" "$tmp/err"

# standard input and output
"$PROFCONV" dump -q "$CG/small.main.out" >"$tmp/d1"
"$PROFCONV" dump -q - <"$CG/small.main.out" >"$tmp/d2"
check "'-' reads standard input, detected as a file would be" cmp "$tmp/d1" "$tmp/d2"
gzip -c "$CG/small.main.out" | "$PROFCONV" dump -q - >"$tmp/d3"
check "gzip on standard input" cmp "$tmp/d1" "$tmp/d3"
"$PROFCONV" convert -q -o - "$CG/small.main.out" >"$tmp/stdout.cg"
check "-o - writes Callgrind to standard output" grep -q '^# callgrind format' "$tmp/stdout.cg"
"$PROFCONV" convert -q -o "$tmp/callgrind.out.file" "$CG/small.main.out"
check "the same bytes as to a file" cmp "$tmp/stdout.cg" "$tmp/callgrind.out.file"
expect_rc 1 "a database format from standard input" "$PROFCONV" dump -f hpctoolkit - </dev/null
check "says it is a directory format" grep -q "<stdin>: hpctoolkit input is a directory" "$tmp/err"

# an old HPCToolkit database without data: nothing to convert; `check`
# says it validates v4 databases, not "meta.db: No such file"
mkdir "$tmp/old-db" && echo '<?xml version="1.0"?><HPCToolkitExperiment version="2.2"/>' >"$tmp/old-db/experiment.xml"
expect_rc 1 "an empty experiment.xml database" "$PROFCONV" convert "$tmp/old-db" -o "$tmp/o.d"
check "has nothing to convert" grep -q "old-db: nothing to convert" "$tmp/err"
expect_rc 1 "check of an experiment.xml database" "$PROFCONV" check "$tmp/old-db"
check "says to convert it first" grep -q "experiment.xml database.*convert it first" "$tmp/err"

# numbers and counts as users read them
"$PROFCONV" check --values "$tmp/own.d" >"$tmp/v"
check "check --values prints integer costs as integers" grep -q "^total	Ir	[0-9]*$" "$tmp/v"
"$PROFCONV" convert --force "$CG/small.main.out" -o "$tmp/own.d" 2>"$tmp/err"
"$PROFCONV" check "$tmp/own.d" >"$tmp/out"
c1=$(sed -n 's/.*: 1 profile, \([0-9]*\) contexts.*/\1/p' "$tmp/err")
c2=$(sed -n 's/.*: \([0-9]*\) contexts (max.*1 profile + summary.*/\1/p' "$tmp/out")
[ -n "$c1" ] && [ "$c1" = "$c2" ] && ok "convert and check count $c1 contexts and 1 profile alike" ||
	{ not_ok "convert and check disagree"; cat "$tmp/err" "$tmp/out" | sed 's/^/# /'; }

# info: what is inside
expect_rc 0 "info" "$PROFCONV" info "$CG/small.threads.out-02" "$CG/small.threads.out-03"
check "info names each input's format" grep -q "small.threads.out-03 (callgrind)" "$tmp/out"
check "info lists profiles with their id tuples" grep -q "^  1: RANK 0 THREAD" "$tmp/out"
check "info gives each metric's total" grep -q "^  Ir: [0-9][0-9]*$" "$tmp/out"
expect_rc 0 "info --json" "$PROFCONV" info --json "$CG/small.main.out"
tot=$(grep -m1 '"total"' "$tmp/out" | tr -dc 0-9)
want=$(sed -n 's/^totals: //p' "$CG/small.main.out")
[ -n "$tot" ] && [ "$tot" = "$want" ] && ok "info --json total $tot = the file's totals: line" ||
	not_ok "info --json total '$tot', want '$want'"
# --- a newcomer's first hour: messages that were wrong or odd ---
cp "$CG/small.main.out" "$tmp/callgrind.out.self"
sum_before=$(cksum <"$tmp/callgrind.out.self")
expect_rc 1 "--force -o X X" "$PROFCONV" convert --force -o "$tmp/callgrind.out.self" "$tmp/callgrind.out.self"
check "an output that is one of the inputs is refused, the input intact" sh -c \
	"grep -q 'callgrind.out.self: the output is one of the inputs' '$tmp/err' &&
	[ '$sum_before' = \"\$(cksum <'$tmp/callgrind.out.self')\" ]"
ln -s "$tmp/own.d" "$tmp/link.d"
expect_rc 1 "--force onto a symlink to a database" "$PROFCONV" convert --force -o "$tmp/link.d" "$CG/small.main.out"
check "the symlink is named as such, with its target" grep -q "link.d: a symbolic link to .*own.d; not replacing it" "$tmp/err"
cp -r "$tmp/own.d" "$tmp/one.d" && : >"$tmp/one.d/notes.txt"
expect_rc 1 "--force onto a database with one foreign file" "$PROFCONV" convert --force -o "$tmp/one.d" "$CG/small.main.out"
check "holds 1 file that is not part" grep -q "holds 1 file that is not part" "$tmp/err"
expect_rc 0 "identify - (standard input)" sh -c "'$PROFCONV' identify - <'$CG/small.main.out'"
check "identify - detects the format" grep -q '^<stdin>: callgrind=100 .* -> callgrind' "$tmp/out"
expect_rc 1 "check on a plain file" "$PROFCONV" check "$CG/small.main.out"
check "check on a plain file: not a directory" grep -q "small.main.out: not a directory (a v4 database is a directory" "$tmp/err"
: >"$tmp/empty.out"
expect_rc 1 "info on an empty file" "$PROFCONV" info "$tmp/empty.out"
check "info: nothing to show (not 'convert')" grep -q "empty.out: nothing to show" "$tmp/err"
expect_rc 0 "convert valgrind's empty base file alone" "$PROFCONV" convert -o "$tmp/base.callgrind" "$CG/threads.out"
check "it reads its thread files, with a note" sh -c "grep -q 'note: .*threads.out is empty: reading its 3 thread files' '$tmp/err' &&
	grep -q ': 3 profiles,' '$tmp/err'"
"$PROFCONV" info "$CG/small.main.out" >"$tmp/i1" 2>&1
"$PROFCONV" convert -o "$tmp/cnt.d" "$CG/small.main.out" 2>"$tmp/c1"
n_info=$(sed -n 's/^\([0-9]*\) contexts,.*/\1/p' "$tmp/i1")
n_conv=$(sed -n 's/.*, \([0-9]*\) contexts,.*/\1/p' "$tmp/c1")
n_check=$("$PROFCONV" check "$tmp/cnt.d" | sed -n 's/.*: \([0-9]*\) contexts .*/\1/p')
[ -n "$n_info" ] && [ "$n_info" = "$n_conv" ] && [ "$n_info" = "$n_check" ] &&
	ok "info, convert and check count the same contexts ($n_info)" ||
	not_ok "contexts: info $n_info, convert $n_conv, check $n_check"
"$PROFCONV" info "$tmp/cnt.d" >"$tmp/i2"
check "after a round trip through v4, info keeps the Calls unit and description" \
	grep -q '^  Calls: 13036 calls  (Calls of the function from its call site' "$tmp/i2"
# the cut of a call tree: one short note from convert, in one plain
# sentence saying what the viewers show and what to do, none from info,
# the details with --verbose
# (py-json's tree fits whole at the default bound: cut at 20,000)
"$PROFCONV" convert --max-contexts=20000 -o "$tmp/pyn.d" "$CG/py-json.out.gz" 2>"$tmp/note"
"$PROFCONV" info --max-contexts=20000 "$CG/py-json.out.gz" 2>"$tmp/inote" >/dev/null
"$PROFCONV" info --max-contexts=20000 --verbose "$CG/py-json.out.gz" 2>"$tmp/vnote" >/dev/null
if [ "$(grep -c 'note:' "$tmp/note")" -eq 1 ] && ! grep -q 'warning' "$tmp/note" &&
	[ "$(grep 'note:' "$tmp/note" | wc -c)" -lt 260 ] &&
	grep -q "note: [0-9.]*% of the cost is shown without its full call paths, in \[summed: N functions\] frames where the tree was cut (totals stay exact); --max-contexts=N, a few times the [0-9]* contexts kept, keeps more paths$" "$tmp/note" &&
	[ ! -s "$tmp/inote" ] && grep -q 'note: call tree cut at [0-9]* contexts' "$tmp/vnote"; then
	ok "a cut call tree: one short note from convert, nothing from info, details with --verbose"
else
	not_ok "cut note"; sed 's/^/# /' "$tmp/note" "$tmp/inote" "$tmp/vnote"
fi
# the note only when it changes what the viewers show: 1% of the cost or
# more (small.main.out at 3,000 contexts: 0.37%, none; with --verbose,
# both notes)
"$PROFCONV" convert --max-contexts=3000 -o "$tmp/smn.d" "$CG/small.main.out" 2>"$tmp/note"
"$PROFCONV" convert --max-contexts=3000 --verbose -o "$tmp/smv.d" "$CG/small.main.out" 2>"$tmp/vnote"
! grep -q 'note:' "$tmp/note" && grep -q 'note: 0.37% of the cost is shown without' "$tmp/vnote" &&
	grep -q 'note: call tree cut at' "$tmp/vnote" &&
	ok "a cut of 0.37% of the cost: no note (--verbose: both)" ||
	{ not_ok "a cut of 0.37%"; sed 's/^/# /' "$tmp/note" "$tmp/vnote"; }
# formats: the descriptions start in one column
"$PROFCONV" formats | awk '/^  / { c = index(substr($0, 3), "  ") + 2
	while (substr($0, c + 1, 1) == " ") c++; print c }' | sort -u >"$tmp/cols"
check "formats: descriptions aligned" test "$(wc -l <"$tmp/cols")" -eq 1
# progress on a terminal: steps in order, never back, no trace.db without traces
if command -v script >/dev/null; then
	script -qec "'$PROFCONV' convert -o '$tmp/tty.d' '$CG/py-json.out.gz'" /dev/null >"$tmp/tty" 2>&1
	tr '\r' '\n' <"$tmp/tty" | sed -n 's/.*writing the database, \([0-9]\)\/\([0-9]\): \([^:]*\):.*/\1 \2 \3/p' | uniq >"$tmp/steps"
	if [ -s "$tmp/steps" ] && sort -n -c "$tmp/steps" 2>/dev/null &&
		! grep -q trace.db "$tmp/steps" && [ "$(cut -d' ' -f2 "$tmp/steps" | sort -u)" = 5 ]; then
		ok "progress: $(cut -d' ' -f3 "$tmp/steps" | tr '\n' ' ')in order, no trace.db"
	else
		not_ok "progress steps"; sed 's/^/# /' "$tmp/steps"
	fi
else
	skip "progress on a terminal: needs script(1) (bsdutils)"
fi
# --help shows three examples; help convert says when -f is needed
"$PROFCONV" --help >"$tmp/help"
check "--help: three examples" test "$(grep -c '^  profconv convert ' "$tmp/help")" -eq 3
check "--help: its Callgrind example is named *.callgrind (KCachegrind loads callgrind.out.prog2 with callgrind.out.prog)" \
	sh -c "grep -q '^  profconv convert prog.d -o prog.callgrind ' '$tmp/help' && ! grep -q 'callgrind.out.prog' '$tmp/help'"
"$PROFCONV" help convert >"$tmp/help"
check "help convert: -f for a named pipe or a device, not for '-'" grep -q "pipe or a device, not for '-'" "$tmp/help"
# a directory of Callgrind files: a hint to give the files
mkdir "$tmp/cgdir" && cp "$CG"/threads.out* "$tmp/cgdir/"
"$PROFCONV" convert "$tmp/cgdir" -o "$tmp/cgdir.d" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "cgdir: unrecognized input format; it holds callgrind files (threads.out-01): give the files, e.g. .*/cgdir/\*$" "$tmp/err" &&
	ok "a directory of Callgrind files: a hint to give the files" ||
	{ not_ok "directory of Callgrind files: exit $rc"; sed 's/^/# /' "$tmp/err"; }
# --stats over profconv's own database: its default.yaml is profconv's,
# nothing is lost, no warning
"$PROFCONV" convert -q "$CG/small.main.out" -o "$tmp/selfstats.d"
"$PROFCONV" convert --stats "$tmp/selfstats.d" -o "$tmp/selfstats-out.d" 2>"$tmp/err"
check "--stats over profconv's own database: no warning" sh -c "! grep -q warning '$tmp/err'"
# check's errors start as every command's do
printf 'x' >"$tmp/selfstats.d/meta.db"
"$PROFCONV" check "$tmp/selfstats.d" 2>"$tmp/err"
check "check: its error line starts 'profconv: error:'" grep -q '^profconv: error: .*meta.db' "$tmp/err"
# a message quotes input bytes that are not UTF-8 as \xHH, as it does
# control bytes
printf 'events: Ir\nfn=a\n1 5\nzz\377\001q\n' >"$tmp/raw.out"
"$PROFCONV" convert -o "$tmp/raw.d" "$tmp/raw.out" 2>"$tmp/err"
check "an error quoting bytes that are not UTF-8: \\xff, \\x01" \
	grep -q "raw.out:4: unrecognized line 'zz\\\\xff\\\\x01q'" "$tmp/err"
# KCachegrind, opening a file F, loads every Callgrind file beside it
# whose name starts with F's (libcore/tracedata.cpp, TraceData::load):
# an output named so is written with a warning; KCachegrind judges it
# where it runs (a line it cannot read shows what it loaded)
mkdir "$tmp/kcn"
printf '# callgrind format\nevents: Ir\nfn=a\n1 5\nzz\n' >"$tmp/kcn/callgrind.out.x2"
"$PROFCONV" convert -o "$tmp/kcn/callgrind.out.x" "$CG/small.main.out" 2>"$tmp/err"
check "an output KCachegrind would load callgrind.out.x2 with: a warning naming it and a name that avoids it" \
	grep -q "^profconv: warning: -o .*/callgrind.out.x: KCachegrind opening callgrind.out.x would also load callgrind.out.x2 beside it, .*; a name such as x.callgrind avoids it" "$tmp/err"
"$PROFCONV" convert -o "$tmp/kcn/callgrind.out.x23" "$CG/small.main.out" 2>"$tmp/err"
check "an output KCachegrind would load with callgrind.out.x2: a warning" \
	grep -q "^profconv: warning: -o .*/callgrind.out.x23: KCachegrind opening callgrind.out.x2\{0,1\} beside it (and 1 more) would also load this output" "$tmp/err"
rm "$tmp/kcn/callgrind.out.x23"
"$PROFCONV" convert -o "$tmp/kcn/x.callgrind" "$CG/small.main.out" 2>"$tmp/err"
check "x.callgrind beside them: no warning" sh -c "! grep -q warning '$tmp/err'"
if have_kc; then
	kc "$tmp/kcn/callgrind.out.x" >"$tmp/kcl"
	kc "$tmp/kcn/x.callgrind" >"$tmp/kcl2"
	grep -q 'callgrind.out.x2.*Invalid line' "$tmp/kcl" && ! grep -q 'callgrind.out.x2' "$tmp/kcl2" &&
		ok "KCachegrind: opening callgrind.out.x loads callgrind.out.x2 too, opening x.callgrind does not" ||
		{ not_ok "KCachegrind's loading by name"; sed 's/^/# /' "$tmp/kcl" "$tmp/kcl2"; }
else
	skip "KCachegrind's loading by name: needs kcachegrind and dbus-run-session (Debian: kcachegrind, dbus)"
fi
# ... and so does the last line, the output's path (issue 57): convert,
# --split, diff
bad=$(printf 'caf\351\033')
"$PROFCONV" convert "$CG/small.main.out" -o "$tmp/$bad.pb.gz" 2>"$tmp/err"
"$PROFCONV" convert --split "$TD/ovni/multi" -o "$tmp/s$bad.pb.gz" 2>>"$tmp/err"
"$PROFCONV" diff "$CG/small.main.out" "$CG/small.main.out" -o "$tmp/d$bad.folded" 2>>"$tmp/err"
[ "$(grep -c '^profconv: wrote .*caf\\xe9\\x1b' "$tmp/err")" -eq 3 ] &&
	! LC_ALL=C grep -q "$bad" "$tmp/err" &&
	ok "the 'wrote' line escapes a path's bytes that are not UTF-8 (convert, --split, diff)" ||
	{ not_ok "the 'wrote' line and a path's bytes"; od -c "$tmp/err" | head -8 | sed 's/^/# /'; }
# trace-less inputs to a trace output: said in plain words
"$PROFCONV" convert "$CG/small.main.out" "$CG/small.main.out" -o "$tmp/two.json" 2>"$tmp/err"
check "several trace-less inputs to .json: 'no input has a trace'" \
	grep -q "nothing to write: no input has a trace (Chrome" "$tmp/err"
# info's text: an input's names, title and path with control bytes
# shown as \xHH, never raw to the terminal (issue 57)
printf '# callgrind format\ncmd: a\033]0;t\007b\nevents: Ir\033x\nfn=f\033\n1 5\n' >"$tmp/ctl.out"
"$PROFCONV" info "$tmp/ctl.out" >"$tmp/info" 2>&1
! grep -q "$(printf '\033')" "$tmp/info" && grep -q 'Ir\\x1Bx' "$tmp/info" &&
	ok "info: control bytes of the input's names shown as \\xHH" ||
	{ not_ok "info: control bytes of the input's names"; od -c "$tmp/info" | head -8 | sed 's/^/# /'; }
done_testing
