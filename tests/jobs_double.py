#!/usr/bin/env python3
"""Programs twice over, for tests/jobs_same.sh: the methods of the
@pl.program class of an input and, after them, a renamed copy (every method
NAME is NAME__2, in its def and in every self.NAME), so that the class falls
into two halves no call joins and --jobs=2 splits it.  Reads the input
paths from standard input, one a line; writes OUTDIR/N.pto for each
distinct text that is plainly one class of decorated methods.

usage: jobs_double.py OUTDIR < LIST"""
import re
import sys


def double(src):
    lines = src.split("\n")
    try:
        cls = next(i for i, l in enumerate(lines) if l.startswith("class "))
        first = next(i for i in range(cls + 1, len(lines)) if lines[i].startswith("    @"))
    except StopIteration:
        return None
    body = lines[first:]
    while body and not body[-1].strip():
        body.pop()
    names = [m.group(1) for l in body for m in [re.match(r"    def (\w+)\(", l)] if m]
    if not names:
        return None
    pat = re.compile(r"\b(self\.)(%s)\b" % "|".join(map(re.escape, names)))
    copy = []
    for l in body:
        l = re.sub(r"^(    def )(\w+)\(", lambda m: m.group(1) + m.group(2) + "__2(", l)
        copy.append(pat.sub(lambda m: m.group(1) + m.group(2) + "__2", l))
    return "\n".join(lines[:first] + body + [""] + copy + [""])


def main():
    seen = set()
    n = 0
    for path in sys.stdin.read().split("\n"):
        if not path:
            continue
        src = open(path, encoding="utf-8", errors="surrogateescape").read()
        if src in seen:
            continue
        seen.add(src)
        out = double(src)
        if out is None:
            continue
        n += 1
        with open("%s/%d.pto" % (sys.argv[1], n), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(out)
    return 0


sys.exit(main())
