# Shared by the benchmarks (sourced; needs $work).

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

# The bench inputs, generated once into $work (see bench/floor.sh for the
# sizes and the variables that change them): sets cg (the cc1plus
# fixture), gen (a generated Callgrind file), old (an old database),
# oldv4 (its v4 copy, made with $bin), ovni (an ovni trace), dcpi (a
# DCPI database). Needs $top, $work and $bin.
bench_inputs() {
	cg="$work/cc1plus.out"
	[ -s "$cg" ] || gzip -dc "$top/testdata/callgrind/cc1plus.out.gz" >"$cg"
	gen="$work/callgrind.out.gen-${CG_FUNCS:-50000}"
	if [ ! -s "$gen" ]; then
		cc -O2 -o "$work/gen_callgrind" "$top/bench/gen_callgrind.c"
		"$work/gen_callgrind" "${CG_FUNCS:-50000}" 60 >"$gen"
	fi
	set -- ${OLD:-64 100000}
	old="$work/old-$1-$2"
	if [ ! -d "$old" ]; then
		cc -std=c11 -O2 -o "$work/gen_legacy" "$top/bench/gen_legacy.c"
		"$work/gen_legacy" "$old" "$1" "$2" >/dev/null 2>&1
	fi
	oldv4="$old.v4.d"
	[ -d "$oldv4" ] || "$bin" convert -q -o "$oldv4" "$old"
	set -- ${OVNI:-16 2000000}
	ovni="$work/ovni-$1-$2"
	if [ ! -d "$ovni" ]; then
		cc -O2 -o "$work/gen_ovni" "$top/bench/gen_ovni.c"
		"$work/gen_ovni" "$ovni" "$1" "$2" >/dev/null
	fi
	set -- ${DCPI:-1000 10000}
	dcpi="$work/dcpi-$1-$2"
	if [ ! -d "$dcpi" ]; then
		mkdir -p "$dcpi/201001011200/alpha1"
		perl "$top/bench/gen_dcpi.pl" "$dcpi/201001011200/alpha1" "$1" "$2"
	fi
}
