# Shared by the benchmarks (sourced; needs $work).

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
