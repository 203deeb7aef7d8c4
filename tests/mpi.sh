#!/bin/sh
# profconv-mpi: `mpirun -np N profconv-mpi convert` writes what the
# serial profconv writes, byte for byte, for N = 1 to 4 (2 and 3 in the
# quick check), on every
# multi-profile input (ovni traces of every layout, old databases 2.x
# and 4.0, v4 databases, per-thread Callgrind files) and on inputs that
# rank 0 reads alone (one Callgrind file, DCPI); a bad profile on rank 2
# of 3 stops every rank with the serial tool's one line, exit status 1
# and nothing left behind.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
MPI="$top_builddir/profconv-mpi"
if [ ! -x "$MPI" ] || ! command -v mpirun >/dev/null; then
	skip "profconv-mpi: needs MPI (Debian: libopenmpi-dev openmpi-bin; configure builds it where MPI is found)"
	done_testing
	exit
fi
# as root, Open MPI asks for these; a sanitized build: Open MPI's own
# plugins leak at MPI_Finalize and are unloaded by then (LeakSanitizer
# cannot name them), so leaks are not checked here (the serial tests
# check profconv's code for them)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export OMPI_MCA_btl="self,vader" OMPI_MCA_btl_vader_single_copy_mechanism=none
# one node, point-to-point and collectives only: the start of each rank
# skips the network and one-sided plugins it would open and probe (some
# a fifth of the CPU of an mpirun here)
export OMPI_MCA_pml=ob1 OMPI_MCA_mtl="^ofi,psm,psm2" OMPI_MCA_osc="^ucx,rdma" PMIX_MCA_gds=hash
run_mpi() { # N ARGS...
	np=$1; shift
	limited 600 mpirun --oversubscribe -np "$np" -x ASAN_OPTIONS "$MPI" "$@"
}
# same NAME NPS OUTPUT-SUFFIX INPUT...: the serial output and the MPI
# ones at each N are the same files, byte for byte
same() {
	name=$1 nps=$2 sfx=$3; shift 3
	rm -rf "$tmp/ser$sfx"
	if ! "$PROFCONV" convert -q -o "$tmp/ser$sfx" "$@" 2>"$tmp/err"; then
		not_ok "$name: the serial conversion fails"; sed 's/^/# /' "$tmp/err"; return
	fi
	bad=
	for np in $nps; do
		rm -rf "$tmp/mpi$sfx"
		run_mpi "$np" convert -q -o "$tmp/mpi$sfx" "$@" >"$tmp/err" 2>&1 &&
			diff -r "$tmp/ser$sfx" "$tmp/mpi$sfx" >/dev/null || {
			bad="$bad $np"; sed 's/^/# /' "$tmp/err" | head -5; }
	done
	if [ -z "$bad" ]; then
		ok "$name: -np $(echo $nps | tr ' ' ,) write the serial $sfx ($(du -sk "$tmp/ser$sfx" | cut -f1) kB)"
	else
		not_ok "$name: $sfx differs at -np$bad"
	fi
	rm -rf "$tmp/ser$sfx" "$tmp/mpi$sfx"
}
# the quick check (tests/run.sh, PC_QUICK) takes 3 ranks (an uneven
# split) for the generated database and 2 (an even one) for its v4
# copy, and 3 for the cut trees below; .ci/run's extras 1 to 4 for
# both, 2 and 3 for the cut trees
ALL3="1 2 3 4" ALL2="1 2 3 4" CUT="2 3"
[ -n "${PC_QUICK:-}" ] && ALL3=3 ALL2=2 CUT=3
# the fixtures and samples at 2 and 3 ranks: an even split, an uneven
# one, and ranks without a profile for inputs of two (each mpirun is
# half a second of start-up; one rank and four are the generated
# database's). Each mpirun is a second of CPU or two (MPI_Init in
# every rank, under the sanitizers): the quick check takes one in six
# fixtures and samples, at 2 and 3 ranks in turn (some sets SOME), the
# extras all of them at both
SOME="2 3" k=0
some() {
	[ -z "${PC_QUICK:-}" ] && return 0
	k=$((k + 1))
	SOME=$((2 + k % 2))
	# (and one in six of them: each is an mpirun of a second of CPU)
	[ $((k % 6)) = 1 ]
}
heavy "the old database to Callgrind at 3 ranks, five in six fixtures and samples, the others at the other of 2 and 3 ranks, the generated database at 2 ranks and its v4 copy at 3, the cut trees at 2, cc1plus's cut trees, other bytes under the same names at 2 ranks" || :
# a generated old database: 24 threads, traces; its v4 copy
"$top_builddir/bench/gen_legacy" "$tmp/old" 24 3000 >/dev/null
"$PROFCONV" convert -q -o "$tmp/old.d" "$tmp/old"
same "old database 4.0, 24 threads" "$ALL3" .d "$tmp/old"
# (the outputs rank 0 writes from the gathered model: pprof and a
# Chrome trace below in the quick check, Callgrind too in the extras)
[ -z "${PC_QUICK:-}" ] && same "old database 4.0, 24 threads" "3" .callgrind "$tmp/old"
same "its v4 copy" "$ALL2" .d "$tmp/old.d"
same "its v4 copy" "2" .pb.gz "$tmp/old.d"
some && same "tiny old database 2.0 (per-thread files)" "$SOME" .d "$TD/hpctoolkit-legacy/tiny-2.0"
some && same "tiny old database 4.0" "$SOME" .d "$TD/hpctoolkit-legacy/tiny-4.0"
for d in "$TD"/ovni/good/* "$TD"/ovni/l0/* "$TD"/ovni/l1/* "$TD"/ovni/marks/* \
	"$TD"/ovni/more/* "$TD"/ovni/multi/* "$TD"/ovni/split/*; do
	[ -d "$d" ] || continue
	some && same "ovni ${d#"$TD"/ovni/}" "$SOME" .d "$d"
done
same "ovni multi: Chrome trace" "3" .json "$TD/ovni/multi/ovni"
some && same "Callgrind thread files (3)" "$SOME" .d "$TD"/callgrind/threads.out-0*
some && same "Callgrind thread files (3)" "$SOME" .callgrind "$TD"/callgrind/threads.out-0*
some && same "Callgrind thread files of small (3)" "$SOME" .d "$TD"/callgrind/small.threads.out-0*
# thread files whose trees are cut (--max-contexts=8000: a quarter of
# the cost below cuts; cc1plus's, three times, at the default bound in
# the extras): each rank lays out and rounds its files' trees alone, as
# one process does
same "Callgrind thread files with cut trees (--max-contexts=8000)" "$CUT" .d --max-contexts=8000 "$TD"/callgrind/threads.out-0*
if [ -z "${PC_QUICK:-}" ]; then
	for i in 1 2 3; do gzip -dc "$TD/callgrind/cc1plus.out.gz" >"$tmp/cc.out-0$i"; done
	same "Callgrind thread files with cut trees (cc1plus x 3)" "2 3" .d "$tmp"/cc.out-0*
	rm -f "$tmp"/cc.out-0*
fi
same "one Callgrind file (rank 0 reads it)" "2" .d "$TD/callgrind/small.main.out"
same "DCPI database (rank 0 reads it)" "2" .d "$TD/dcpi/db"
if have_shared; then
	for d in "$SHARED"/ovni-data/v* "$SHARED"/hpctoolkit-data/*/; do
		[ -d "$d" ] || continue
		some && same "$(basename "$d")" "$SOME" .d "${d%/}"
	done
else
	skip "the real databases and traces: $NO_SHARED"
fi

# the ranks write their own profiles' blocks and trace lines: -np 3
# gives profiles 8-23 of the old database to ranks 1 and 2
rm -rf "$tmp/out.d"
run_mpi 3 convert --verbose -o "$tmp/out.d" "$tmp/old" >"$tmp/errm" 2>&1
line=$(grep 'ranks 1 to 2:.* wrote' "$tmp/errm")
set -- $(echo "$line" | sed -n 's/.*they wrote \([0-9]*\) profiles: \([0-9]*\) bytes of profile.db, \([0-9]*\) of trace.db/\1 \2 \3/p')
if [ "${1:-}" = 16 ] && [ "$2" -gt 100000 ] && [ "$3" -gt 0 ] &&
	"$PROFCONV" check -q "$tmp/out.d"; then
	ok "old database at -np 3: ranks 1 and 2 write 16 profiles' blocks ($2 bytes) and trace lines ($3 bytes)"
else
	not_ok "old database at -np 3: the ranks' parts: ${line:-no line}"; sed 's/^/# /' "$tmp/errm" | head
fi
rm -rf "$tmp/out.d"
# profile 20 of the old database made bad (its context index, as
# tests/jobs.sh does): -np 3 gives profiles 16-23 to rank 2
cp -r "$tmp/old" "$tmp/cutold"
bad_old_profile "$tmp/cutold" 20
"$PROFCONV" convert -q -o "$tmp/out.d" "$tmp/cutold" 2>"$tmp/err1"
run_mpi 3 convert -q -o "$tmp/out.d" "$tmp/cutold" >"$tmp/errm" 2>&1
rc=$?
grep '^profconv' "$tmp/errm" >"$tmp/err3"
if [ $rc = 1 ] && cmp -s "$tmp/err1" "$tmp/err3" && [ "$(wc -l <"$tmp/err3")" = 1 ] &&
	grep -q 'value index' "$tmp/err3" && [ -z "$(ls "$tmp" | grep '^out')" ]; then
	ok "a bad profile on rank 2 of 3: the serial line once, exit 1, nothing left: $(sed "s|$tmp/||g" "$tmp/err3")"
else
	not_ok "a bad profile on rank 2 of 3: exit $rc"; sed 's/^/# /' "$tmp/err1" "$tmp/errm"
fi
# a refused output: every rank stops before reading
mkdir -p "$tmp/taken.d" && echo x >"$tmp/taken.d/mine"
run_mpi 2 convert -q --force -o "$tmp/taken.d" "$tmp/old" >"$tmp/errm" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(grep -c '^profconv: error' "$tmp/errm")" = 1 ] && [ -f "$tmp/taken.d/mine" ] &&
	ok "a refused output: one line, exit 1, every rank stops" ||
	{ not_ok "a refused output: exit $rc"; sed 's/^/# /' "$tmp/errm" | head; }
# ranks that see different inputs (a trace still being written, cached
# attributes): one line naming the input and the rank, exit 1, nothing
# written. The same relative path in two working directories, one with
# a thread fewer (mpirun's MPMD form)
mkdir -p "$tmp/wa" "$tmp/wb"
cp -r "$TD/ovni/multi/ovni" "$tmp/wa/trace" && cp -r "$TD/ovni/multi/ovni" "$tmp/wb/trace" &&
	chmod -R u+w "$tmp/wa" "$tmp/wb" &&
	rm -rf "$(find "$tmp/wb/trace" -name 'thread.*' | sort | head -1)"
limited 600 mpirun --oversubscribe -np 1 --wdir "$tmp/wa" -x ASAN_OPTIONS "$MPI" convert trace -o "$tmp/diff.d" : \
	-np 1 --wdir "$tmp/wb" -x ASAN_OPTIONS "$MPI" convert trace -o "$tmp/diff.d" >"$tmp/errd" 2>&1
rc=$?
said=$(grep '^profconv:' "$tmp/errd")
[ $rc -ne 0 ] && [ "$(echo "$said" | wc -l)" -eq 1 ] &&
	echo "$said" | grep -q "^profconv: error: trace: the input differs between ranks: rank 1 sees other files or sizes than rank 0" &&
	[ ! -e "$tmp/diff.d" ] && ! ls "$tmp" | grep -q 'diff.d.tmp' &&
	ok "ranks that see different inputs: one line naming the input and the rank, nothing written" ||
	{ not_ok "ranks that see different inputs: exit $rc"; sed 's/^/# /' "$tmp/errd" | head -8; }
# ranks that read other bytes under the same names and sizes (a file
# still being written, a node's stale cache): one line naming the file
# whose bytes differ, exit 1, nothing written. Rank 0 reads in ba, the
# other ranks in bb, where thread file 3 has one cost digit changed; at
# -np 2 rank 1 reads it alone, so rank 0 digests it too
mkdir -p "$tmp/ba" "$tmp/bb" && rm -rf "$tmp/ba"/* "$tmp/bb"/*
for f in 01 02 03; do
	cp "$TD/callgrind/threads.out-$f" "$tmp/ba/t.out-$f"
	cp "$TD/callgrind/threads.out-$f" "$tmp/bb/t.out-$f"
done
sed '/^fn=(650) 0x000000000486f360$/{n;s/^0 2$/0 3/;}' \
	"$TD/callgrind/threads.out-03" >"$tmp/bb/t.out-03"
cat >"$tmp/pick" <<EOS
#!/bin/sh
[ "\${OMPI_COMM_WORLD_RANK:-0}" = 0 ] && cd "$tmp/ba" || cd "$tmp/bb"
exec "$MPI" "\$@"
EOS
chmod +x "$tmp/pick"
if cmp -s "$tmp/ba/t.out-03" "$tmp/bb/t.out-03" ||
	[ "$(wc -c <"$tmp/ba/t.out-03")" != "$(wc -c <"$tmp/bb/t.out-03")" ]; then
	not_ok "same names and sizes, other bytes: the fixture is not made"
else
	MIX="2 3"
	[ -n "${PC_QUICK:-}" ] && MIX=3
	for np in $MIX; do
		rm -rf "$tmp/mix.d"
		limited 600 mpirun --oversubscribe -np $np -x ASAN_OPTIONS "$tmp/pick" \
			convert -q -o "$tmp/mix.d" t.out-01 t.out-02 t.out-03 >"$tmp/errd" 2>&1
		rc=$?
		said=$(grep '^profconv' "$tmp/errd")
		[ $rc -ne 0 ] && [ "$(echo "$said" | wc -l)" -eq 1 ] &&
			echo "$said" | grep -q "^profconv: error: t.out-03: the input differs between ranks: rank [12] reads other bytes than rank 0 under the same name and size" &&
			[ ! -e "$tmp/mix.d" ] && ! ls "$tmp" | grep -q 'mix.d.tmp' &&
			ok "same names and sizes, other bytes at -np $np: one line naming the file, nothing written" ||
			{ not_ok "same names and sizes, other bytes at -np $np: exit $rc"; sed 's/^/# /' "$tmp/errd" | head -8; }
	done
fi
done_testing
