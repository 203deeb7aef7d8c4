#!/bin/sh
# Names from inputs in every writer (issue 57, item 1): event names and
# descriptions, function, file and object names, the command line and a
# trace's title that hold markup, quotes, '</script>', ']]>', control
# characters, U+FFFE/U+FFFF (not XML characters) and bytes that are not
# UTF-8. The SVG parses, has only the elements, attributes and script
# its writer makes, shows each name, and runs nothing of the input's in
# Chromium; the Chrome trace's JSON keeps the names; the v4 database's
# YAML parses and keeps the metrics' names; Callgrind reads back with as
# many functions and events; folded lines hold no control character.
# Routes: Callgrind -> SVG, Callgrind -> v4 -> SVG, diff -> SVG, an
# ovni trace -> SVG, Chrome trace, v4.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
needs /usr/bin/python3 "the judges of the outputs" python3
J="/usr/bin/python3 $top_srcdir/tests/escape_judge.py"

# --- the inputs ---
cat >"$tmp/gen.pl" <<'EOF'
# A Callgrind file with every kind of string where it has one; the raw
# function names to names.fn, the event names to names.ev (NUL-ended).
my ($dir, $k) = @ARGV;
my $js = q{document.documentElement.setAttribute('pw'+'ned','y'+'es')};
my @fn = (
	"<script>$js</script>",
	qq{"><g onmouseover="$js">'&amp;<i>},
	"x]]></script><script>$js</script><![CDATA[",
	"ctl\x01\x1b[31m\x7f\ttab\x0bend",
	"nc\xef\xbf\xbe\xef\xbf\xbfend",
	"bad\xff\xc3(\xed\xa0\x80\xc0\xafend",
	"(1) an id's look",
);
my @ev = ("Ir<script>$js</script>", qq{Dr<x>&"'}, "Dw]]>\x01\xef\xbf\xbe\xff");
open(my $o, '>', "$dir/names.fn") or die; print $o map { "$_\0" } @fn;
open($o, '>', "$dir/names.ev") or die; print $o map { "$_\0" } @ev;
print "# callgrind format\nversion: 1\ncreator: escape.sh\n";
print "cmd: ./a.out <script>$js</script> ]]> \"' \x01\x1b \xef\xbf\xbe \xff\n";
print "positions: line\n";
print "event: $ev[0] : <script>$js</script> \"'&\x01\xef\xbf\xbf\xfe\n";
print "event: $ev[1] : ]]></script>\n";
print "events: @ev\n";
print "ob=(1) /lib/<ob>&\"\x01\xef\xbf\xbf\xff.so\nfl=(1) <f>&\"']]>.c\n";
print "fn=(1) main\n1 10 1 1\n";
my $i = 2;
for my $f (@fn) {
	print $i == 2 ? "cfl=(2) /src/\xff\x01<\xef\xbf\xbe.c\n" : "cfl=(2)\n";
	print "cfn=($i) $f\ncalls=1 1\n2 ", $k * $i, " 1 1\n";
	$i++;
}
print "fl=(2)\n";
$i = 2;
for my $f (@fn) { print "fn=($i)\n3 ", 10 * $i, " 1 1\n"; $i++ }
EOF
cat >"$tmp/ovni.pl" <<'EOF'
# The marks' labels of testdata/ovni/good's stream.json (standard input):
# JSON strings of markup and a script, ]]>, quotes, a backslash, control
# characters, U+FFFE/U+FFFF, bytes that are not UTF-8; their raw bytes
# to names.ov (NUL-ended), with the nosv type's label stream.obs gets.
local $/; my $s = <STDIN>;
my $js = q{document.documentElement.setAttribute('pw'+'ned','y'+'es')};
$s =~ s/"init"/"<script>$js<\\\/script>\\n\\u0001\\ufffe"/ or die;
$s =~ s/"compute"/"]]>\\"'\\\\ \\t\\uffff\xff\xc3("/ or die;
print $s;
open(my $o, '>', $ARGV[0]) or die;
print $o "<script>$js</script>\n\x01\xef\xbf\xbe\0]]>\"'\\ \t\xef\xbf\xbf\xff\xc3(\0<\x01\xff\"&]>\0";
EOF
perl "$tmp/gen.pl" "$tmp" 10 >"$tmp/h.out" && perl "$tmp/gen.pl" "$tmp" 13 >"$tmp/h2.out" || exit 1
# the trace: in a directory whose name (the trace's title) is hostile too
ov="$tmp/$(printf 'ov<b>&"'"'"']]>\001\357\277\276\377')"
cp -r "$TD/ovni/good" "$ov" && chmod -R u+w "$ov" || exit 1
s="$ov/loom.host.fix/proc.100/thread.11"
perl "$tmp/ovni.pl" "$tmp/names.ov" <"$s/stream.json" >"$tmp/sj" && mv "$tmp/sj" "$s/stream.json" || exit 1
# the nosv type's label "my_task" in the binary stream, seven bytes
perl -0777 -pi -e 's/my_task/<\x01\xff"&]>/ or die' "$s/stream.obs" || exit 1

conv() { # OUT ARGS...: a conversion that must succeed
	o=$1; shift
	rm -rf "$o"
	"$PROFCONV" convert -q -o "$o" "$@" 2>"$tmp/err" ||
		{ not_ok "convert -o $(basename "$o") $*"; sed 's/^/# /' "$tmp/err"; return 1; }
}

# --- SVG: XML of the writer's own elements, each name shown ---
"$PROFCONV" convert -q -o "$tmp/ref.svg" "$TD/callgrind/small.main.out" || exit 1
"$PROFCONV" diff -q -o "$tmp/refd.svg" "$TD/callgrind/small.main.out" \
	"$TD/callgrind/small.main.out" || exit 1
svg_ok() { # SVG REF NAMES WHAT
	if xmllint --noout "$1" 2>"$tmp/xl" && $J svg "$1" "$2" "$3" >"$1.frames" 2>&1; then
		ok "$4: the SVG parses (libxml2, expat), only the writer's elements and script, every name shown ($(cat "$1.frames"))"
	else
		not_ok "$4: the SVG"; sed 's/^/# /' "$tmp/xl" "$1.frames" | head -8
		rm -f "$1.frames"
	fi
}
cat "$tmp/names.fn" >"$tmp/names.all"
conv "$tmp/h.svg" "$tmp/h.out" && svg_ok "$tmp/h.svg" "$tmp/ref.svg" "$tmp/names.all" "Callgrind -> SVG"
for m in 1 2; do # the unit shown in each frame's title: the metric's name
	conv "$tmp/m$m.svg" --metric="$(tr '\0' '\n' <"$tmp/names.ev" | sed -n ${m}p)" "$tmp/h.out" &&
		svg_ok "$tmp/m$m.svg" "$tmp/ref.svg" "$tmp/names.all" "Callgrind -> SVG of event $m"
done
conv "$tmp/h.d" "$tmp/h.out" && conv "$tmp/hd.svg" "$tmp/h.d" &&
	svg_ok "$tmp/hd.svg" "$tmp/ref.svg" "$tmp/names.all" "Callgrind -> v4 -> SVG"
rm -f "$tmp/diff.svg"
if "$PROFCONV" diff -q -o "$tmp/diff.svg" "$tmp/h.out" "$tmp/h2.out" 2>"$tmp/err"; then
	svg_ok "$tmp/diff.svg" "$tmp/refd.svg" "$tmp/names.all" "diff -> SVG"
else
	not_ok "diff -> SVG"; sed 's/^/# /' "$tmp/err"
fi
conv "$tmp/ov.svg" "$ov" && svg_ok "$tmp/ov.svg" "$tmp/ref.svg" "$tmp/names.ov" "ovni -> SVG"

# ... and in Chromium, no script of the input's runs, and every frame
# is drawn (a page cut short by an XML error runs nothing either)
ss="$top_srcdir/tests/speedscope"
if have_chromium playwright-core; then
	# (one page for them all: a page is most of the cost; the quick
	# check opens the Callgrind, differential and ovni SVGs, the extras
	# those of each event and of the v4 copy too)
	sv="h diff ov"
	heavy "the SVGs of each event and of the v4 copy in Chromium" && sv="h m1 m2 hd diff ov"
	set --
	for f in $sv; do
		[ -f "$tmp/$f.svg" ] && set -- "$@" "$tmp/$f.svg" main "$tmp/$f.png"
	done
	node "$ss/svg_judge.mjs" "$@" >"$tmp/sjall" 2>&1
	for f in $sv; do
		[ -f "$tmp/$f.svg" ] || continue
		awk -v f="$tmp/$f.svg" '$1 == "file" { on = ($2 == f); next } on' "$tmp/sjall" >"$tmp/sj"
		if grep -q '^injected 0$' "$tmp/sj" && grep -q '^errors 0$' "$tmp/sj" &&
			grep -qx "$(cat "$tmp/$f.svg.frames" 2>/dev/null)" "$tmp/sj"; then
			ok "Chromium: $f.svg runs no script of the input's, draws its $(cat "$tmp/$f.svg.frames"), no error"
		else
			not_ok "Chromium: $f.svg"; sed 's/^/# /' "$tmp/sj" "$tmp/sjall" | head -40
		fi
	done
else
	skip "the SVGs in Chromium: $chromium_why"
fi

# --- Chrome trace: JSON, the names as they were ---
if conv "$tmp/ov.json" "$ov"; then
	check "ovni -> Chrome trace: JSON with every label as it was (non-UTF-8 bytes as \\xHH)" \
		$J json "$tmp/ov.json" "$tmp/names.ov"
	check "ovni -> Chrome trace: the title, as it was" /usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1], encoding="utf-8"))["otherData"]["title"]
sys.exit(t != "ovni trace " + sys.argv[2] + "\\xFF")' "$tmp/ov.json" \
		"$(printf '%s' "$ov" | LC_ALL=C sed 's/\xff$//')"
fi

# --- v4: meta.db and metrics/default.yaml ---
check "Callgrind -> v4: profconv check" "$PROFCONV" check "$tmp/h.d"
check "Callgrind -> v4: the YAML parses, every event name a metric's" \
	$J yaml "$tmp/h.d/metrics/default.yaml" "$tmp/names.ev"
conv "$tmp/ov.d" "$ov" && check "ovni -> v4: profconv check" "$PROFCONV" check "$tmp/ov.d"

# --- Callgrind: read back, as many functions and events ---
shape() { "$PROFCONV" info "$1" 2>/dev/null | sed -n 's/^\([0-9]*\) metrics.*/\1 metrics/p; s/.* \([0-9]*\) functions,.*/\1 functions/p' | paste -sd, -; }
want=$(shape "$tmp/h.out")
for v in "" --no-compress; do
	for src in h.out h.d; do
		conv "$tmp/callgrind.out.x" $v "$tmp/$src" || continue
		got=$(shape "$tmp/callgrind.out.x")
		if [ "$got" = "$want" ] && ! grep -q "$(printf '\001')" "$tmp/callgrind.out.x"; then
			ok "$src -> Callgrind ${v:-compressed}: reads back with $got, no control byte"
		else
			not_ok "$src -> Callgrind ${v:-compressed}: $got (the input: $want)"
		fi
	done
done

# --- folded: a line per stack, no control character ---
if conv "$tmp/h.folded" "$tmp/h.out"; then
	k=$(LC_ALL=C grep -c '^[^;]*;main;[^;]* [0-9]*$' "$tmp/h.folded")
	if [ "$k" -eq 7 ] && ! LC_ALL=C grep -q '[[:cntrl:]]' "$tmp/h.folded" &&
		! grep -q "$(printf '\357\277[\276\277]')" "$tmp/h.folded"; then
		ok "Callgrind -> folded: 7 callee lines, no control character, no U+FFFE/U+FFFF"
	else
		not_ok "Callgrind -> folded: $k callee lines"; sed 's/^/# /' "$tmp/h.folded" | cat -v
	fi
fi

# --- pprof: go tool pprof reads it, every function named ---
if have_go; then
	if conv "$tmp/h.pb.gz" "$tmp/h.out"; then
		HOME="$tmp" go tool pprof -top -nodecount=100 "$tmp/h.pb.gz" >"$tmp/top" 2>&1
		k=$(grep -c '^ *[0-9][0-9.a-z]* *[0-9.]*% ' "$tmp/top")
		check "pprof: go tool pprof lists 9 functions (main, [main thread], 7 named by the input), got $k" \
			[ "$k" -eq 9 ]
	fi
else
	skip "pprof: $go_why"
fi
done_testing
