#!/usr/bin/python3
"""Compares profconv's folded stacks of a perf script file with
stackcollapse-perf.pl's of the same file, stack for stack.

Usage: perf_folded.py PROFCONV.folded STACKCOLLAPSE.folded

Where the two differ on purpose, both sides are brought to one form
first (doc/formats.md, "Linux perf"):
- stackcollapse-perf.pl's first frame is the command's name, profconv's
  the thread's entry ("[main thread]"): both are dropped;
- a frame perf names [unknown] is "[unknown]" in profconv (its address
  is its context), "[MODULE]" in stackcollapse-perf.pl when the module
  is known: every bracketed name reads "[unknown]";
- stackcollapse-perf.pl cuts a name at its first '(' (C++ arguments) and
  drops quotes; profconv keeps the name perf gives: the same cut is made
  on profconv's names.
Then the counts of equal stacks are summed on each side, and must be
equal. Prints the first differences; exit 0 if none, 1 otherwise.
"""
import re
import sys


def tidy(f):
    f = f.replace(';', ':')
    if not re.search(r'\.\(.*\)\.', f):
        f = re.sub(r'\((?!anonymous namespace\)).*', '', f)
    return f.replace('"', '').replace("'", '')


def load(path, ours):
    out = {}
    for n, line in enumerate(open(path, encoding='utf-8',
                                  errors='surrogateescape'), 1):
        line = line.rstrip('\n')
        if not line:
            continue
        stack, count = line.rsplit(' ', 1)
        frames = stack.split(';')[1:]
        if ours:
            frames = [tidy(f.replace('\\x3b', ';')) for f in frames]
        frames = ['[unknown]' if re.fullmatch(r'\[[^\]]*\]', f) else f
                  for f in frames]
        key = ';'.join(frames)
        out[key] = out.get(key, 0) + int(count)
    return out


def main():
    a, b = load(sys.argv[1], True), load(sys.argv[2], False)
    bad = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k, 0) != b.get(k, 0):
            if bad < 5:
                print('stack %s: profconv %d, stackcollapse-perf.pl %d'
                      % (k[:300], a.get(k, 0), b.get(k, 0)))
            bad += 1
    print('%d stacks, %d differ; totals %d and %d'
          % (len(set(a) | set(b)), bad, sum(a.values()), sum(b.values())))
    return 1 if bad else 0


sys.exit(main())
