# Shared by tests/run.sh and tests/memcheck.sh (sourced from the top of
# the source tree, $top): the generated build files and the builds
# beside the source tree, a line per test script as it finishes, and
# the sum of the harness's .trs files.

# suite_setup: configure made from configure.ac and Makefile.am if they
# are newer, a source tree not configured in place (the builds are
# beside it); sets jobs (the cores, 2 at least). Ends the script with
# "0 passed, 1 failed" where it cannot go on.
suite_setup() {
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
		autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; echo "0 passed, 1 failed"; exit 1; }
	fi
	if [ -f config.status ]; then
		echo "the source tree is configured in place; run 'make distclean' first"
		echo "0 passed, 1 failed"
		exit 1
	fi
	jobs=$(nproc 2>/dev/null || echo 2)
	[ "$jobs" -ge 2 ] || jobs=2
}

# reusable DIR ARGS: DIR (beside configure, in the current directory) is
# a build configured with ARGS since configure was last made: make
# brings it up to date (configured: the ARGS, written by tests/run.sh)
reusable() {
	[ -f "$1/configured" ] && [ -f "$1/Makefile" ] &&
		[ "$(cat "$1/configured")" = "$2" ] && [ ! configure -nt "$1/configured" ]
}

# sanitizer_build: build-check/ (beside configure), the build of
# tests/run.sh with -Werror, AddressSanitizer and UBSan (with clang when
# it is there: its UBSan also catches offsets on NULL), up to date, and
# the current directory; 1, with the end of its log, if it fails.
# build-check/ is reused when it was configured so, after configure was
# last made: make then rebuilds what changed since (a fresh clone, as
# CI's, or a configure made anew builds it from scratch)
sanitizer_build() {
	cc=
	command -v clang >/dev/null && cc=clang
	args="-q --enable-werror --enable-sanitizers${cc:+ CC=$cc}"
	if reusable build-check "$args"; then
		echo "building what changed with -Werror, AddressSanitizer and UBSan in build-check/ ..."
		cd build-check || return 1
		configured=:
	else
		echo "building with -Werror, AddressSanitizer and UBSan in build-check/ ..."
		rm -rf build-check && mkdir build-check && cd build-check || return 1
		configured="../configure $args"
	fi
	# (the arguments split on blanks, as written above)
	# shellcheck disable=SC2086
	if ! $configured || ! echo "$args" >configured ||
		! make -j"$jobs" >build.log 2>&1; then
		rm -f configured
		tail -30 build.log 2>/dev/null
		echo "build failed"
		return 1
	fi
}

# quick_build: build/, the Quick start's build (configured as it
# configures it: ../configure, the default -O2), up to date, and the
# current directory; made the first time (a fresh clone, as CI's); after,
# make rebuilds only what changed (and reconfigures where configure
# changed); 1, with the end of its log, if it fails
quick_build() {
	if [ -f build/Makefile ] && [ -f build/config.status ]; then
		echo "building what changed in build/ (the Quick start's build) ..."
		cd build || return 1
		configured=:
	else
		echo "building in build/ as the Quick start does ..."
		mkdir -p build && cd build || return 1
		configured="../configure -q"
	fi
	if ! $configured || ! make -j"$jobs" >build.log 2>&1; then
		tail -30 build.log 2>/dev/null
		echo "build failed"
		return 1
	fi
}

# plain_build DIR [CONFIGURE-ARGS...]: a build without sanitizers in
# $top/DIR, made anew, and the current directory; 1, with the end of its
# log, if it fails
plain_build() {
	d=$1
	shift
	rm -rf "${top:?}/$d" && mkdir "$top/$d" && cd "$top/$d" || return 1
	if ! ../configure -q CFLAGS='-O1 -g' "$@" || ! make -j"$jobs" >build.log 2>&1; then
		tail -30 build.log
		echo "plain build failed"
		return 1
	fi
}

# watch DIR FLAG: prints a line for each test script of DIR/tests as its
# .trs appears (its counts, its SKIP reasons, its failures), until FLAG
# exists and every script seen so far is printed. (It looks every two
# seconds with the shell's glob, one process a look: a find and a sort
# each second were some 3 s of CPU of a quiet run, 12 s of a run slowed
# down four times by the machine's load.)
watch() {
	seen=" "
	while :; do
		last=0
		[ -e "$2" ] && last=1
		for t in "$1"/tests/*.trs; do
			[ -e "$t" ] || continue
			case $seen in *" $t "*) continue ;; esac
			seen="$seen$t "
			report_trs "$t"
		done
		[ $last = 1 ] && break
		sleep 2
	done
}
report_trs() {
	log=${1%.trs}.log
	name=${1#"$top"/build-*/}
	# (one awk for the counts, the SKIP reasons, counted, in the order
	# they came, and the failures with the 6 lines after each: it runs
	# once a script)
	awk -v trs="$1" -v name="${name%.trs}" -v phase="$phase" '
		FILENAME == trs {
			if (/^:test-result: PASS/) p++
			else if (/^:test-result: SKIP/) s++
			else if (/^:test-result: (FAIL|ERROR|XPASS)/) f++
			next
		}
		/^ok [0-9]+ - # SKIP/ {
			r = $0; sub(/^ok [0-9]* - # SKIP */, "", r)
			if (!(r in nr)) order[++k] = r
			nr[r]++
		}
		/^not ok|^ERROR/ { after = 7 }
		after > 0 { after--; if (nf < 40) bad[++nf] = $0 }
		END {
			printf "%-4s %s (%s): %d passed, %d failed, %d skipped\n",
				(f > 0 ? "FAIL" : "PASS"), name, phase, p, f, s
			for (i = 1; i <= k; i++)
				print "    skip: " order[i] (nr[order[i]] > 1 ? " (x" nr[order[i]] ")" : "")
			if (f > 0)
				for (i = 1; i <= nf; i++) print "    " bad[i]
		}' "$1" "$log"
}

# run_phase DIR PHASE MAKE-ARGS...: `make check` in DIR with a line per
# script as it finishes; its exit status
run_phase() {
	dir=$1 phase=$2
	shift 2
	rm -f "$dir/done"
	# (a reused build's results of the run before are not this run's:
	# the watcher would print them as they stand)
	find "$dir/tests" -name '*.trs' -exec rm -f {} + 2>/dev/null
	watch "$dir" "$dir/done" &
	wpid=$!
	(cd "$dir" && make -j"$jobs" check "$@" >check.log 2>&1)
	prc=$?
	touch "$dir/done"
	wait $wpid
	return $prc
}

# sum_trs FILES...: sets passed, skipped and failed (added to them)
sum_trs() {
	set -- $(awk '/^:test-result: PASS/ { p++ } /^:test-result: SKIP/ { s++ }
		/^:test-result: (FAIL|ERROR|XPASS)/ { f++ }
		END { print p + 0, s + 0, f + 0 }' "$@" /dev/null)
	passed=$((passed + $1)) skipped=$((skipped + $2)) failed=$((failed + $3))
}

# browser_start: one Chromium for the judges of the whole run
# (tests/speedscope/browser_server.mjs), its endpoint exported in
# PC_BROWSER, where Chromium, node and playwright-core are there (a
# judge launches a browser of its own where PC_BROWSER is empty or its
# browser gone). A Chromium start is some 4-5 s of CPU here: four
# scripts' starts were a tenth of the quick run's. browser_stop (or the
# end of the shell, which closes its input) ends it.
browser_start() {
	PC_BROWSER=
	export PC_BROWSER
	[ -x /usr/bin/chromium ] && command -v node >/dev/null &&
		[ -d "$top/tests/speedscope/node_modules/playwright-core" ] || return 0
	bdir=$(mktemp -d "${TMPDIR:-/tmp}/profconv-browser.XXXXXX") || return 0
	mkfifo "$bdir/in" "$bdir/ws" || { rm -rf "$bdir"; return 0; }
	node "$top/tests/speedscope/browser_server.mjs" <"$bdir/in" >"$bdir/ws" 2>"$bdir/err" &
	bpid=$!
	# (its input stays open on fd 8 until browser_stop, and the tests run
	# with fd 8 closed, so that nothing they leave running holds it; the
	# endpoint is its first line, or nothing if it could not start)
	exec 8>"$bdir/in"
	read -r PC_BROWSER <"$bdir/ws" || PC_BROWSER=
	case $PC_BROWSER in ws://*) ;; *) PC_BROWSER= ;; esac
}
browser_stop() {
	[ -n "${bpid:-}" ] || return 0
	exec 8>&-
	kill "$bpid" 2>/dev/null
	wait "$bpid" 2>/dev/null
	rm -rf "$bdir"
	bpid=
}
