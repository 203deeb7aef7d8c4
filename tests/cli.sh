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
check "identify shows the score" grep -q 'callgrind=100 hpctoolkit=0 -> callgrind' "$tmp/out"
expect_rc 0 "identify a v4 database" "$PROFCONV" identify "$SHARED/hpctoolkit-data/v4-small.d"
check "v4 database detected" grep -q 'hpctoolkit=100 -> hpctoolkit' "$tmp/out"
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
expect_rc 0 "empty file skipped with a warning" "$PROFCONV" dump "$CG/small.threads.out" "$CG/small.threads.out-02"
check "warning says empty" grep -q 'empty file, skipped' "$tmp/err"
expect_rc 0 "-q silences warnings" "$PROFCONV" dump -q "$CG/small.threads.out" "$CG/small.threads.out-02"
check "nothing on stderr with -q" test ! -s "$tmp/err"
done_testing
