#!/bin/sh
# Remakes the fixtures of this directory with Debian's linux-perf 6.1 as
# root (perf_event_paranoid 2 lets root record; other users need it at 1
# or below): a program of two threads (thr.c: main -> mid -> leaf, a
# worker thread -> other -> leaf, poly inlined into leaf) and gzip.
# The text fixtures are perf script's output of those recordings; their
# addresses and kernel symbols are this machine's.
set -e
out=$(cd "$(dirname "$0")" && pwd)
w=/tmp/profconv-perf
mkdir -p $w
gcc -O2 -g -fno-omit-frame-pointer -pthread -o $w/thr "$out/thr.c" -lm
cd $w
# frame pointers (-g): the default text, a -F field set with pid/tid and
# cpu, two events; the perf.data fixture itself
perf record -q -F 499 -g -o thr.data ./thr >/dev/null
cp thr.data "$out/thr.data"
perf script -i thr.data >"$out/thr.txt"
perf record -q -F 499 -g --sample-cpu -o cpu.data ./thr >/dev/null
perf script -i cpu.data -F comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso \
	>"$out/thr.fields.txt"
perf record -q -e cpu-clock,task-clock -F 199 -g -o two.data ./thr >/dev/null
perf script -i two.data -F comm,pid,tid,time,period,event,ip,sym,dso >"$out/thr.two-events.txt"
# DWARF unwinding: inlined frames (--inline), source lines (+srcline)
perf record -q -F 199 --call-graph dwarf,16384 -o dwarf.data ./thr >/dev/null
perf script -i dwarf.data --inline >"$out/thr.inline.txt"
perf script -i dwarf.data --inline -F +srcline >"$out/thr.srcline.txt"
# no call chains: the frame on the sample's line
perf record -q -F 499 -o flat.data ./thr >/dev/null
perf script -i flat.data >"$out/thr.flat.txt"
perf script -i flat.data -F comm,tid,ip,sym >"$out/thr.flat-notime.txt"
# gzip with frame pointers (Debian builds it without: [unknown] frames)
head -c 20000000 /dev/urandom | base64 >$w/in.txt
perf record -q -F 499 -g -o gzip.data gzip -c $w/in.txt >/dev/null
perf script -i gzip.data -F comm,pid,tid,time,period,event,ip,sym,symoff,dso --ns \
	>"$out/gzip.txt"
