#!/bin/sh
# How the Callgrind/Cachegrind fixtures in this directory were made
# (valgrind 3.19.0, gcc 12.2.0, Debian 12, x86_64). Run from this directory;
# the programs are built in /tmp/profconv-fixtures so the recorded source
# paths are stable (/tmp/profconv-fixtures/prog.c).
set -eu
here=$(pwd)
w=/tmp/profconv-fixtures
rm -rf "$w"; mkdir -p "$w"
cp src/prog.c src/threads.c src/tmpl.cpp src/cc1-input.cpp "$w"
cd "$w"
gcc -O1 -g -o prog prog.c -lm
gcc -O1 -g -pthread -o threads threads.c
g++ -O2 -g -o tmpl tmpl.cpp
vg="valgrind -q"
$vg --tool=callgrind --callgrind-out-file=prog.default.out ./prog >/dev/null
# the same program at another input (profconv diff: two runs)
$vg --tool=callgrind --callgrind-out-file=prog.n22.out ./prog 22 >/dev/null
$vg --tool=callgrind --dump-instr=yes --collect-jumps=yes --callgrind-out-file=prog.instr-jumps.out ./prog >/dev/null
$vg --tool=callgrind --compress-strings=no --compress-pos=no --callgrind-out-file=prog.nocompress.out ./prog >/dev/null
$vg --tool=callgrind --separate-callers=2 --callgrind-out-file=prog.sepcallers.out ./prog >/dev/null
$vg --tool=callgrind --cache-sim=yes --dump-instr=yes --callgrind-out-file=prog.cachesim.out ./prog >/dev/null
$vg --tool=callgrind --dump-before=work --combine-dumps=yes --callgrind-out-file=prog.combined.out ./prog >/dev/null
$vg --tool=callgrind --dump-before=work --callgrind-out-file=prog.dumps.out ./prog >/dev/null
$vg --tool=callgrind --separate-threads=yes --callgrind-out-file=threads.out ./threads >/dev/null
$vg --tool=cachegrind --cachegrind-out-file=prog.cachegrind.out ./prog >/dev/null
# small ones (costs inside main/worker only), for the golden dumps
$vg --tool=callgrind --toggle-collect=main --callgrind-out-file=small.main.out ./prog >/dev/null
$vg --tool=callgrind --toggle-collect=spin --dump-instr=yes --collect-jumps=yes --callgrind-out-file=small.spin-instr.out ./threads >/dev/null
$vg --tool=callgrind --toggle-collect=main --separate-callers=2 --compress-strings=no --callgrind-out-file=small.main-sepcallers.out ./prog >/dev/null
$vg --tool=callgrind --toggle-collect=worker --separate-threads=yes --callgrind-out-file=small.threads.out ./threads >/dev/null
gzip -9 -n -c prog.default.out > prog.default.out.gz
# real programs (kept gzipped): C++ with templates, recursion and inlined
# code (fi=/fe=), with and without instruction positions; CPython 3.11
# (Debian's /usr/bin/python3) doing a JSON round trip: deep recursion
# through the interpreter loop, the input of issue 7
$vg --tool=callgrind --callgrind-out-file=cpp.default.out ./tmpl >/dev/null
$vg --tool=callgrind --dump-instr=yes --collect-jumps=yes --callgrind-out-file=cpp.instr.out ./tmpl >/dev/null
$vg --tool=callgrind --callgrind-out-file=py-json.out /usr/bin/python3 -c \
	'import json; d={"a":[1,2,3]*1000,"b":{"x":"y"*100}}; s=json.dumps(d); [json.loads(s) for _ in range(200)]'
# GCC 12's C++ compiler proper (Debian's cc1plus, no debug info) at -O2
# on a small file: a real compiler's call graph, with recursive clusters
# of hundreds of functions (parser, optimizer passes, the garbage
# collector's marking) and helpers with hundreds of callers
$vg --tool=callgrind --callgrind-out-file=cc1plus.out \
	/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet -O2 -g cc1-input.cpp -o cc1-input.s
# recursive groups the calling-context tree must keep to the call graph
# (issue "Calling context a user can trust"): mutual recursion and a
# group of three called from a cheap and a heavy caller, an interpreter's
# dispatch loop, a memoized call; and sort with two threads without
# --separate-threads (a thread's start_thread has no caller)
cp "$here"/src/recur.c "$here"/src/interp.c "$here"/src/cache.c .
for p in recur interp cache; do
	gcc -O1 -g -fno-inline -o $p $p.c
	$vg --tool=callgrind --callgrind-out-file=$p.out ./$p >/dev/null
done
/usr/bin/python3 -c 'import random
random.seed(7)
with open("sortin.txt", "w") as f:
    n = 0
    while n < 2*1024*1024:
        l = "%012d\n" % random.randrange(10**12); f.write(l); n += len(l)'
$vg --tool=callgrind --callgrind-out-file=sort-threads.out sort --parallel=2 -S 16M sortin.txt >/dev/null
# Debian's /usr/bin/perl (5.36) on a recursive sub and regular
# expressions: a small input (the database's bound of ~30 times it is
# the tight one) with an interpreter's recursive group
cp "$here"/src/fib.pl .
$vg --tool=callgrind --callgrind-out-file=perl.out /usr/bin/perl fib.pl >/dev/null
# code inlined from another file (a header's function at -O2: fi=/fe=
# lines inside work)
cp "$here"/src/recinl.c "$here"/src/helpers.h .
gcc -O2 -g -o recinl recinl.c
$vg --tool=callgrind --callgrind-out-file=recinl.out ./recinl >/dev/null
# profconv diff on one tree (tests/diff_tree.sh): the same binary with
# and without the cache simulation, the same Ir per function (call edges
# on exit's path 2 Ir apart), more events in the second
$vg --tool=callgrind --callgrind-out-file=recinl.pair.out ./recinl >/dev/null
$vg --tool=callgrind --cache-sim=yes --callgrind-out-file=recinl.pair-cachesim.out ./recinl >/dev/null 2>&1
# python3 -S (Debian 12's 3.11) with cache simulation: sparse events in
# ld.so's recursive groups (tests/callgrind_invariants.sh)
$vg --tool=callgrind --cache-sim=yes --callgrind-out-file=pyS-cachesim.out /usr/bin/python3 -S -c pass >/dev/null 2>&1
gzip -9 -n -c pyS-cachesim.out >pyS-cachesim.out.gz
# GCC 12's cc1plus at -O2 on a file instantiating maps, regexes, variants
# and streams 24 levels deep (27.8 G instructions, the include paths g++
# passes it): a compile whose tree is cut at the default bound (42% of
# the cost in summed frames), where a larger --max-contexts may lay out
# a tree that tells a worse story (issue 58, item 3)
cp "$here"/src/stl.cpp .
$vg --tool=callgrind --callgrind-out-file=stl.out \
	/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet -nostdinc++ -nostdinc \
	-isystem /usr/include/c++/12 -isystem /usr/include/x86_64-linux-gnu/c++/12 \
	-isystem /usr/include/c++/12/backward \
	-isystem /usr/lib/gcc/x86_64-linux-gnu/12/include -isystem /usr/local/include \
	-isystem /usr/include/x86_64-linux-gnu -isystem /usr/include \
	-O2 stl.cpp -o /dev/null
# (sparse-group.out.gz, heavy-cut.out and heavy-trim.out are written by hand, not made
# here: their comment lines say what they hold)
for f in cpp.default.out cpp.instr.out py-json.out cc1plus.out recur.out interp.out cache.out sort-threads.out recinl.out recinl.pair.out recinl.pair-cachesim.out perl.out stl.out; do gzip -9 -n -c $f > $f.gz; done
cp *.gz "$here"
cd "$here"
cp "$w"/*.out* .
rm -f recur.out interp.out cache.out sort-threads.out recinl.out recinl.pair.out \
	recinl.pair-cachesim.out perl.out stl.out
rm -rf "$w"
