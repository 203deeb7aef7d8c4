# Shared by the shell tests: TAP helpers and paths. `make check` sets
# top_srcdir and top_builddir; `sh tests/x.sh` from the source tree
# takes the README's build (build/), else the suite's (build-check/),
# and says so when there is none.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
	for top_builddir in "$top_srcdir/build" "$top_srcdir/build-check" "$top_srcdir"; do
		[ -x "$top_builddir/profconv" ] && break
	done
fi
if [ ! -x "$top_builddir/profconv" ]; then
	echo "Bail out! no profconv in $top_builddir: build it first (the README's Quick start builds in build/), or set top_builddir=DIR where it was built"
	exit 99
fi
: "${SHARED:=$top_srcdir/../shared}"
PROFCONV="$top_builddir/profconv"
# The tools' locale is C, as on a fresh machine (profconv itself never
# reads it): the same results everywhere, and gawk in a UTF-8 locale
# takes 8 s over the long context paths of cc1plus's scopes, 0.6 s in C.
LC_ALL=C
export LC_ALL
TD="$top_srcdir/testdata"
# The real HPCToolkit databases in ../shared (beside the project, not
# part of it): tests that need them report SKIP with this reason when a
# clone stands alone.
have_shared() { [ -d "$SHARED/hpctoolkit-data" ]; }
NO_SHARED="needs ../shared/hpctoolkit-data (real HPCToolkit databases beside the project)"
NO_SHARED_OVNI="needs ../shared/ovni-data (real ovni traces beside the project)"
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
# check DESCRIPTION COMMAND...: ok if the command succeeds
check() {
	d=$1; shift
	if "$@" >"$tmp/check.out" 2>&1; then ok "$d"; else
		not_ok "$d"; sed 's/^/# /' "$tmp/check.out" | head -40; fi
}
# limited CPU-SECONDS COMMAND...: the command with its CPU time bounded
# (ulimit -t: a runaway loop is caught whatever the machine's load; it
# then dies of SIGXCPU, status 152) and a guard of 600 s of wall-clock
# time against a process blocked on I/O, which spends no CPU: no test
# comes near it, even on a machine loaded many times over
limited() { (ulimit -t "$1" && shift && exec timeout 600 "$@"); }
# heavy WHAT: the checks it guards are heavy (the big Callgrind fixtures
# laid out whole, go tool pprof or a judge on their outputs, many MPI
# runs): the README's quick check (tests/run.sh sets PC_QUICK) leaves
# them, with a SKIP saying so, to .ci/run's extras (tests/extras.sh
# runs these scripts whole in the same sanitizer build); 0 where they run
heavy() {
	[ -z "${PC_QUICK:-}" ] && return 0
	skip "$1: a heavy check, run by .ci/run's extras (sh tests/extras.sh)"
	return 1
}
# needs COMMAND WHAT PACKAGE: without COMMAND the whole script is one
# SKIP saying what it needs
needs() {
	command -v "$1" >/dev/null && return 0
	skip "$2: needs $1 (Debian: $3)"
	done_testing
	exit
}
done_testing() { echo "1..$n"; [ "$failed" -eq 0 ]; }
# cg_same A B: two Callgrind files show the same functions with the same
# self and inclusive costs in callgrind_annotate, for every event (the
# order of functions and their compressed names may differ)
cg_same() {
	nev=$(($(grep -m1 '^events:' "$1" | wc -w) - 1))
	for f in "$1" "$2"; do
		for inc in no yes; do
			callgrind_annotate --threshold=100 --inclusive=$inc "$f" |
				awk -v mode=self -v nev="$nev" \
					-f "$top_srcdir/tests/annotate2tsv.awk" | sort
		done >"$f.tsv"
	done
	[ -s "$1.tsv" ] && cmp -s "$1.tsv" "$2.tsv"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# longnames DB: "LONG NAME<TAB>NAME" for each metric of DB: the event
# long name the Callgrind writer gives it (its description, else its
# name), from `info --json` (json-c writes one key per line)
longnames() {
	"$PROFCONV" info --json "$1" | awk '
		function flush() { if (n != "") print (d != "" ? d : n) "\t" n; n = d = "" }
		function str(s) { sub(/^ *"[a-z]*":"/, "", s); sub(/",?$/, "", s)
			gsub(/\\\//, "/", s); return s }
		/^  "metrics":\[/ { in_m = 1; next }
		in_m && /^  \]/ { flush(); in_m = 0 }
		in_m && /^      "name":/ { flush(); n = str($0) }
		in_m && /^      "description":/ { d = str($0) }'
}
# sanitized: profconv is built with AddressSanitizer, which reserves
# terabytes of address space (no `ulimit -v` then)
sanitized() { grep -q __asan_init "$top_builddir/profconv" 2>/dev/null; }
# have_go: go tool pprof runs here; else go_why says what is missing
# (for a SKIP's reason)
go_why=unknown
have_go() {
	if [ "$go_why" = unknown ]; then
		go_why=
		if ! command -v go >/dev/null; then
			go_why="needs go (Debian: golang-go)"
		elif ! HOME="$tmp" GOCACHE="$tmp/go" go tool pprof -h >/dev/null 2>"$tmp/go.err"; then
			go_why="go tool pprof does not run here: $(head -1 "$tmp/go.err" | cut -c1-120)"
		fi
	fi
	[ -z "$go_why" ]
}
# have_chromium MODULE...: the judges of tests/speedscope can run in
# headless Chromium with the npm MODULEs (speedscope, playwright-core);
# else chromium_why names what is missing
have_chromium() {
	chromium_why=
	[ -x /usr/bin/chromium ] || chromium_why="/usr/bin/chromium (Debian: chromium)"
	command -v node >/dev/null || chromium_why="${chromium_why:+$chromium_why, }node (Debian: nodejs)"
	nm=
	for m in "$@"; do
		[ -d "$top_srcdir/tests/speedscope/node_modules/$m" ] || nm="${nm:+$nm and }$m"
	done
	[ -z "$nm" ] || chromium_why="${chromium_why:+$chromium_why, }$nm in tests/speedscope/node_modules ('npm ci' there; Debian: npm)"
	[ -z "$chromium_why" ] || chromium_why="needs $chromium_why"
	[ -z "$chromium_why" ]
}
# have_kc: KCachegrind can run headless here
have_kc() { command -v kcachegrind >/dev/null && command -v dbus-run-session >/dev/null; }
# kc FILE: prints KCachegrind's load messages for FILE (headless). It
# never exits by itself: its verdict is taken as soon as its window is
# up (Qt's offscreen platform then says it cannot raise it), which is
# after the load, however long a loaded machine takes (as limited's
# guards: its CPU time bounded, 600 s of wall-clock time at most)
kc() {
	rm -f "$tmp/kc.fifo" && mkfifo "$tmp/kc.fifo" || return 1
	# (the subshell execs timeout, so $! is timeout's, and the kill
	# below reaches KCachegrind through it; limited's own subshell
	# would leave them running)
	(ulimit -t 300 && HOME="$tmp" XDG_RUNTIME_DIR="$tmp" exec timeout 600 \
		dbus-run-session -- kcachegrind -platform offscreen "$1") \
		>"$tmp/kc.fifo" 2>&1 &
	kcpid=$!
	# its messages up to the window's, read as they come (a loop of
	# grep and sleep was some 40 processes a load)
	sed -u '/support raise()/q' <"$tmp/kc.fifo" >"$tmp/kc.log"
	kill "$kcpid" 2>/dev/null
	wait "$kcpid" 2>/dev/null
	grep '^Loading ' "$tmp/kc.log" || true
}
# PC_VALGRIND=1 (tests/memcheck.sh runs the CLI tests so): every profconv run
# goes through valgrind's memcheck; an error or a definite leak exits 99
# PROFCONV_REF stays the plain binary: for the references a test
# compares with, made by code other tests run under memcheck
PROFCONV_REF="$PROFCONV"
if [ -n "${PC_VALGRIND:-}" ]; then
	printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --read-inline-info=no --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite "%s" "$@"\n' \
		"$PROFCONV" >"$tmp/profconv"
	chmod +x "$tmp/profconv"
	PROFCONV="$tmp/profconv"
fi

# bad_inputs DIR < "FILE EXPECTED" lines: each damaged input gives exit
# 1, one error line matching EXPECTED (grep), and no output left behind
# (the shell's own reads and globs where it can: a process is some 5 ms
# of CPU here, and these run for every damaged fixture)
bad_inputs() {
	bdir=$1
	while read -r f want; do
		"$PROFCONV" convert "$bdir/$f" -o "$tmp/bad.d" 2>"$tmp/err"
		rc=$?
		l1= l2=
		{ IFS= read -r l1; IFS= read -r l2; } <"$tmp/err"
		set -- "$tmp"/bad.d.tmp*
		if [ $rc -eq 1 ] && [ -n "$l1" ] && [ -z "$l2" ] && [ ! -e "$1" ] &&
			[ ! -e "$tmp/bad.d" ] && grep -q -- "$want" "$tmp/err"; then
			ok "$f: ${l1##*bad/}"
		else
			not_ok "$f: exit $rc"; sed 's/^/# /' "$tmp/err"
		fi
	done
}
# bad_old_profile DB N: makes profile N of an old database's
# HPCPROF-profile.db bad (its context index: a value index past its
# values; big-endian), for the tests of a failure halfway through
bad_old_profile() {
	perl -e '
		open(my $f, "+<", $ARGV[0]) or die; binmode $f;
		sub rd { my ($at, $n) = @_; seek($f, $at, 0); read($f, my $b, $n); $b }
		my $pi = unpack("Q>", rd(32, 8));
		my $e = $pi + 52 * $ARGV[1];
		my ($nv, $off) = (unpack("Q>", rd($e + 32, 8)), unpack("Q>", rd($e + 44, 8)));
		seek($f, $off + 10 * $nv + 12 + 4, 0); print $f pack("Q>", 1 << 40);
	' "$1/profile.db" "$2"
}
