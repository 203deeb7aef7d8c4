# Shared by the benchmarks (sourced; needs $work).

# pin: the command that keeps a single-threaded run on one core (empty
# without taskset); load0: the load average as the bench began
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# awk's median(s) of the numbers in string s, for the tables: prepend it
# to a program (awk "$MEDIAN_AWK"'...')
MEDIAN_AWK='
function median(s,   n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
'

# KCachegrind never exits by itself: its CPU time is read from /proc
# until it stays the same for 3 seconds (loading done), then it is ended
kc() { # file: prints CPU seconds (KCachegrind headless, $work as HOME)
	HOME="$work" XDG_RUNTIME_DIR="$work" dbus-run-session -- \
		kcachegrind -platform offscreen "$1" >/dev/null 2>&1 &
	wrapper=$!
	last=-1 same=0 pid=
	while [ $same -lt 3 ]; do
		sleep 1
		[ -n "$pid" ] || pid=$(pgrep -P "$wrapper" -x kcachegrind || true)
		[ -n "$pid" ] || continue
		ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || break
		if [ "$ticks" = "$last" ]; then same=$((same + 1)); else same=0; last=$ticks; fi
	done
	kill "$pid" 2>/dev/null || true
	wait "$wrapper" 2>/dev/null || true
	echo "$last $(getconf CLK_TCK)" | awk '{print $1 / $2}'
}

# A bench's own files (GNU time's, messages, samples, outputs) go in a
# directory of the run's own under $work: two benches sharing BENCH_DIR's
# inputs at once (floor.sh and jobs.sh, or two engineers' floor.sh) wrote
# the same $work/time, samples and outputs, and removed each other's
# outputs: a conversion failed and its sample line took the other's
# "Command exited with non-zero status" line, split in two (a stray row
# "0.000" in floor.sh's table). run_dir sets $run and removes it at exit.
run_dir() {
	run=$(mktemp -d "$work/run.XXXXXX")
	trap 'rm -rf "$run"' EXIT
}

# measured FORMAT COMMAND...: GNU time's FORMAT of COMMAND (its last
# line: GNU time puts a line before it when the command fails), its
# output discarded, run after memory is touched and freed (this VM
# charges the first touch of memory given back to the host); leaves the
# bench with the command's messages if it fails. Uses $run (else $work)
# and $pin (taskset).
measured() {
	fmt=$1
	shift
	/usr/bin/python3 -c 'bytearray(256 << 20)'
	/usr/bin/time -f "$fmt" -o "${run:-$work}/time" ${pin:-} "$@" </dev/null >/dev/null 2>"${run:-$work}/err" ||
		{ echo "$0: $*: failed" >&2; cat "${run:-$work}/err" >&2; exit 1; }
	tail -n 1 "${run:-$work}/time"
}
bytes() { du -sb "$1" | cut -f1; }

# Generated inputs, made once: an ovni trace (DIR THREADS EVENTS), an
# old database (DIR THREADS CONTEXTS), a Callgrind file (FILE FUNCTIONS,
# 60 lines each).
gen_ovni_trace() {
	[ -d "$1" ] && return 0
	cc -O2 -o "$work/gen_ovni" "$top/bench/gen_ovni.c"
	"$work/gen_ovni" "$1" "$2" "$3" >/dev/null
}
gen_old_db() {
	[ -d "$1" ] && return 0
	cc -std=c11 -O2 -o "$work/gen_legacy" "$top/bench/gen_legacy.c"
	"$work/gen_legacy" "$1" "$2" "$3" >/dev/null 2>&1
}
gen_cg_file() {
	[ -s "$1" ] && return 0
	cc -O2 -o "$work/gen_callgrind" "$top/bench/gen_callgrind.c"
	"$work/gen_callgrind" "$2" 60 >"$1"
}

# The bench inputs, generated once into $work (see bench/floor.sh for the
# sizes and the variables that change them): sets cg (the cc1plus
# fixture), cgthreads (three copies of it, as a program's thread files:
# several paths), gen (a generated Callgrind file), old (an old database),
# oldv4 (its v4 copy, made with $bin), ovni (an ovni trace), dcpi (a
# DCPI database). Needs $top, $work and $bin.
bench_inputs() {
	cg="$work/cc1plus.out"
	[ -s "$cg" ] || gzip -dc "$top/testdata/callgrind/cc1plus.out.gz" >"$cg"
	# the same as the files of three threads (--separate-threads)
	cgthreads=
	for i in 1 2 3; do
		[ -s "$cg-0$i" ] || cp "$cg" "$cg-0$i"
		cgthreads="$cgthreads $cg-0$i"
	done
	gen="$work/callgrind.out.gen-${CG_FUNCS:-50000}"
	gen_cg_file "$gen" "${CG_FUNCS:-50000}"
	set -- ${OLD:-64 100000}
	old="$work/old-$1-$2"
	gen_old_db "$old" "$1" "$2"
	oldv4="$old.v4.d"
	[ -d "$oldv4" ] || "$bin" convert -q -o "$oldv4" "$old"
	set -- ${OVNI:-16 2000000}
	ovni="$work/ovni-$1-$2"
	gen_ovni_trace "$ovni" "$1" "$2"
	set -- ${DCPI:-1000 10000}
	dcpi="$work/dcpi-$1-$2"
	if [ ! -d "$dcpi" ]; then
		mkdir -p "$dcpi/201001011200/alpha1"
		perl "$top/bench/gen_dcpi.pl" "$dcpi/201001011200/alpha1" "$1" "$2"
	fi
}
