#!/usr/bin/python3
"""Compares per-symbol values of profconv's folded stacks of a perf.data
file with perf report's of the same file.

Usage: perf_report.py self PROFCONV.folded REPORT
       perf_report.py children PROFCONV.folded REPORT

self: REPORT is `perf report --stdio --no-children --sort sym -g none
-F period,sym`: each symbol's self period (the innermost frame's) must
equal profconv's, exactly. children: REPORT is `perf report --stdio
--children --sort sym -g none`: each symbol's children share (the
samples with the symbol anywhere in their stack, once) must equal
profconv's as perf prints it (100 x value / total, two decimals).
perf report names a symbol it does not know by its address ("0x7f..."),
profconv by "[unknown]": their self values are summed as "[unknown]";
their children shares, one per address in perf report, are left out.
An inlined function is "NAME (inlined)" in perf report's children: NAME
here. (Self values are compared on stacks without inlined frames: perf
report charges a sample to the function its code is inlined into,
profconv to the inlined function, as hpcviewer and pprof show it.) The folded
stacks' first frame (the thread's entry) is left out; symbols are
compared by name (perf report also keeps kernel ([k]) and user ([.])
symbols of one name apart: a name in both is an error here).
Prints the differences; exit 0 if none.
"""
import re
import sys


def sym(s):
    return '[unknown]' if re.fullmatch(r'0x[0-9a-f]+|[0-9a-f]{16}', s) else s


def folded(path, mode):
    out, total = {}, 0
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        stack, count = line.rstrip('\n').rsplit(' ', 1)
        frames = [f.replace('\\x3b', ';') for f in stack.split(';')[1:]]
        c = int(count)
        total += c
        names = frames[-1:] if mode == 'self' else set(frames)
        for f in names:
            if mode != 'self' and f == '[unknown]':
                continue
            out[f] = out.get(f, 0) + c
    return out, total


def report(path, mode):
    out, seen = {}, {}
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        if line.startswith('#') or not line.strip():
            continue
        if mode == 'self':
            m = re.match(r'\s*(\d+)\s+\[(.)\]\s+(.*?)\s*$', line)
        else:
            m = re.match(r'\s*([\d.]+)%\s+[\d.]+%\s+\[(.)\]\s+(.*?)\s*$',
                         line)
        if not m:
            sys.exit('perf report line not understood: ' + line)
        name = sym(re.sub(r' \(inlined\)$', '', m.group(3)))
        if mode != 'self' and name == '[unknown]':
            continue
        if name != '[unknown]' and seen.setdefault(name, m.group(2)) != m.group(2):
            sys.exit('symbol %s is both [k] and [.]' % name)
        v = float(m.group(1)) if mode != 'self' else int(m.group(1))
        if mode != 'self' and name in out:
            sys.exit('several unknown symbols in a children report')
        out[name] = out.get(name, 0) + v
    return out


def main():
    mode, ours, theirs = sys.argv[1], sys.argv[2], sys.argv[3]
    a, total = folded(ours, mode)
    b = report(theirs, mode)
    if mode != 'self':
        a = {k: float('%.2f' % (100.0 * v / total)) for k, v in a.items()}
    bad = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k, 0) != b.get(k, 0):
            if bad < 8:
                print('%s: profconv %s, perf report %s'
                      % (k, a.get(k, 0), b.get(k, 0)))
            bad += 1
    print('%s: %d symbols, %d differ' % (mode, len(set(a) | set(b)), bad))
    return 1 if bad else 0


sys.exit(main())
