#!/usr/bin/env python3
"""The conformance corpus (../shared/conformance/cases) as test data, fast.

A shell loop over the corpus starts several processes per case (bash,
timeout, cmp, ...); on the 2-core CI machine, where a fork and its page
faults are dear, that made a run over the 9 000-odd cases take many
minutes.  Here every ptoopt run is one process started from Python, and
what can run in one process does: programs that get the same options are
joined with '# -----' lines and run once with --split-input-file (each
part is parsed and run on its own, as a file of its own would be).  A
part whose result is not the one wanted is run again on its own, and
that run's result is the verdict, so a batch can only make a check
faster, never change it.

usage:
  corpus.py conformance PTOOPT CASES KNOWN [GROUP...]
      every case of the groups (default: all) as ../shared/conformance/run
      checks it; the cases that fail must be exactly those KNOWN lists
      ("group/case  why" lines): a new failure fails, and so does a listed
      case that passes (the list is kept true).
  corpus.py directions PTOOPT CASES BASE_OUTLINED BASE_ALL [GROUP...]
      infer-directions over the expected outputs (tests/directions_corpus.sh
      says what is checked).
  corpus.py fixpoint PTOOPT DIR...
      print(parse(print(x))) == print(x) for every distinct .pto under the
      DIRs that ptoopt accepts (tests/print_fixpoint.sh).
  corpus.py jobs PTOOPT TMPDIR [--cases CASES] DIR...
      -j1 and -j2 give the same stdout, stderr and exit status, through
      the three-pass pipeline and pypto-default, for every .pto under the
      DIRs and every program of the corpus, merged (tests/jobs_same.sh).
"""
import hashlib
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SEP = "# -----\n"
TIMEOUT = 10  # seconds per case, as the conformance runner
JOBS = os.cpu_count() or 2
# a batch's text: small enough that the batches of a run keep every
# processor busy, big enough that process starts stop mattering
BATCH_BYTES = 256 << 10


def env():
    e = dict(os.environ)
    e.setdefault("ASAN_OPTIONS", "halt_on_error=1:abort_on_error=1")
    e.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1:abort_on_error=1")
    e["LC_ALL"] = "C"
    return e


ENV = env()


class Run:
    __slots__ = ("rc", "out", "err")

    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err


def run(tool, args, path=None, data=None, cwd=None, timeout=TIMEOUT):
    """One ptoopt run: args, then path (or data on stdin)."""
    cmd = [tool] + list(args) + ([path] if path else [])
    try:
        p = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=ENV,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return Run(124, b"", b"timed out")
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    return Run(rc, p.stdout, p.stderr)


def pmap(fn, items):
    """fn over items on JOBS threads (each mostly waits on its process), in order."""
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        return list(ex.map(fn, items))


def batches(texts):
    """Indexes of texts in runs of about BATCH_BYTES (at least one each)."""
    out, cur, size = [], [], 0
    for i, t in enumerate(texts):
        if cur and size + len(t) > BATCH_BYTES:
            out.append(cur)
            cur, size = [], 0
        cur.append(i)
        size += len(t)
    if cur:
        out.append(cur)
    return out


def split_run(tool, args, texts):
    """Each text through ptoopt ARGS as if on its own: a list with, for
    each, its stdout, or None where the batch cannot tell (the part failed
    and printed nothing, or the whole run crashed): None means, run it
    alone.  A text holding a separator line, or not ending in a newline
    (the join would add one), is left to a run of its own."""
    result = [None] * len(texts)
    ok = [i for i, t in enumerate(texts) if t.endswith(b"\n") and not re.search(rb"^# -----", t, re.M)]
    sep = SEP.encode()

    def one(idx):
        r = run(tool, ["--split-input-file"] + list(args) + ["-"], data=sep.join(texts[i] for i in idx),
                timeout=TIMEOUT * len(idx))
        if r.rc not in (0, 1):
            return
        # the results, joined by separator lines (a failed part's is empty)
        parts, cur = [], []
        for line in r.out.splitlines(keepends=True):
            if line == sep:
                parts.append(b"".join(cur))
                cur = []
            else:
                cur.append(line)
        parts.append(b"".join(cur))
        if len(parts) != len(idx):
            return
        for i, p in zip(idx, parts):
            if p:
                result[i] = p

    pmap(one, [[ok[k] for k in b] for b in batches([texts[i] for i in ok])])
    return result


# ---------------------------------------------------------------- cases
def case_dirs(cases, groups):
    groups = groups or sorted(d for d in os.listdir(cases) if os.path.isdir(os.path.join(cases, d)))
    out = []
    for g in groups:
        gd = os.path.join(cases, g)
        if not os.path.isdir(gd):
            sys.exit("corpus.py: no group %s under %s" % (g, cases))
        out += ["%s/%s" % (g, c) for c in sorted(os.listdir(gd)) if os.path.isdir(os.path.join(gd, c))]
    return out


def read(path, mode="rb"):
    with open(path, mode) as f:
        return f.read()


def conformance(tool, cases, known_file, groups):
    names = case_dirs(cases, groups)
    known = {}
    for line in read(known_file, "r").splitlines():
        if line.strip() and not line.startswith("#"):
            k, _, why = line.partition(" ")
            known[k] = why.strip()
    args, inputs, want, err_want = [], [], [], []
    for n in names:
        d = os.path.join(cases, n)
        args.append(read(os.path.join(d, "args"), "r").split())
        inputs.append(read(os.path.join(d, "input.pto")))
        e = os.path.join(d, "expected.pto")
        if os.path.exists(e):
            want.append(read(e))
            err_want.append(None)
        else:
            want.append(None)
            err_want.append(read(os.path.join(d, "expected-error.txt"), "r").split("\n")[0].encode())
    verdict = [None] * len(names)
    # the expected.pto cases, batched by their options
    by_args = {}
    for i, a in enumerate(args):
        if want[i] is not None:
            by_args.setdefault(tuple(a), []).append(i)
    for a, idx in sorted(by_args.items()):
        outs = split_run(tool, a, [inputs[i] for i in idx])
        for i, o in zip(idx, outs):
            if o is not None and o == want[i]:
                verdict[i] = True
    # the rest alone, as the conformance runner runs them

    def alone(i):
        d = os.path.join(cases, names[i])
        r = run(tool, args[i], "input.pto", cwd=d)
        if want[i] is not None:
            return r.rc == 0 and r.out == want[i]
        return r.rc not in (0, 124) and r.rc < 128 and err_want[i] in r.err

    rest = [i for i in range(len(names)) if verdict[i] is None]
    for i, v in zip(rest, pmap(alone, rest)):
        verdict[i] = v
    counts = {}
    status = 0
    for n, v in zip(names, verdict):
        g = n.split("/")[0]
        c = counts.setdefault(g, [0, 0])
        c[0 if v else 1] += 1
        if not v and n not in known:
            print("FAIL %s" % n)
            status = 1
        elif v and n in known:
            print("XPASS %s: passes now; remove it from %s" % (n, known_file))
            status = 1
    for g, (p, f) in counts.items():
        print("%-12s %5d passed, %5d failed" % (g, p, f))
    npass = sum(1 for v in verdict if v)
    print("%d passed, %d failed (%d known: %s)" % (npass, len(names) - npass,
                                                   sum(1 for n in names if n in known), os.path.basename(known_file)))
    return status


# ---------------------------------------------------------------- directions
HANDLED = re.compile(rb"@pl\.function\(type=pl\.FunctionType\.(InCore|AIC|AIV|Group|Spmd)[,)]")


def handled(text):
    """Names of the InCore / AIC / AIV / Group / Spmd functions of a file:
    the decorator names the type, the next def the function."""
    names, want = [], False
    for line in text.split(b"\n"):
        if HANDLED.search(line):
            want = True
            continue
        m = re.match(rb"[ \t]*def ([A-Za-z_0-9]+)\(", line)
        if want and m:
            names.append(m.group(1).decode())
            want = False
        elif re.match(rb"[ \t]*@", line):
            want = False
    return names


def directions(tool, cases, base_outlined, base_all, groups):
    files = []
    for n in case_dirs(cases, groups):
        e = os.path.join(cases, n, "expected.pto")
        if os.path.exists(e):
            t = read(e)
            if HANDLED.search(t):
                files.append(e)
    files.sort()
    texts = [read(f) for f in files]
    names = [handled(t) for t in texts]
    # the functions the reference's outliners made: not defined in input.pto
    mine = []
    for f, ns in zip(files, names):
        inp = os.path.join(os.path.dirname(f), "input.pto")
        src = read(inp) if os.path.exists(inp) else None
        mine.append([n for n in ns if src is not None and not re.search(rb"def %s\(" % n.encode(), src)])
    P = ["--passes=infer-directions"]
    RESET = P + ["--pass-option", "infer-directions.reset=true"]
    once = split_run(tool, P, texts)
    twice = split_run(tool, ["--passes=infer-directions,infer-directions"], texts)
    reset_all = split_run(tool, RESET, texts)

    def alone(i, args):
        return run(tool, args, files[i])

    # per file: the runs the batches left open, and the outlined reset
    def check(i):
        t = texts[i]
        tok = set()
        if mine[i]:
            tok.add("outlined")
            r = alone(i, RESET + ["--pass-option", "infer-directions.functions=" + ",".join(mine[i])])
            if r.rc == 0 and r.out == t:
                tok.add("outlined-ok")
        if mine[i] == names[i]:
            if "outlined-ok" in tok:
                tok.add("all-ok")
        else:
            o = reset_all[i]
            if o is None:
                r = alone(i, RESET)
                o = r.out if r.rc == 0 else None
            if o == t:
                tok.add("all-ok")
        o1 = once[i]
        if o1 is None:
            r = alone(i, P)
            if r.rc == 1:
                return tok | {"rejected"}
            if r.rc != 0:
                return tok | {"error"}
            o1 = r.out
        if o1 == t:
            tok.add("fixed")
        o2 = twice[i]
        if o2 is None:
            r = alone(i, ["--passes=infer-directions,infer-directions"])
            o2 = r.out if r.rc == 0 else None
        tok.add("idem" if o1 == o2 else "idem-fail")
        return tok

    res = pmap(check, range(len(files)))
    cnt = lambda k: sum(1 for r in res if k in r)
    bad = lambda k: [f for f, r in zip(files, res) if k in r]
    outlined, outlined_ok, all_ok = cnt("outlined"), cnt("outlined-ok"), cnt("all-ok")
    crashes, rejected = cnt("error"), cnt("rejected")
    run_ok = len(files) - crashes - rejected
    print("infer-directions corpus: %d files with InCore/AIC/AIV/Group/Spmd functions" % len(files))
    print("  reset -> infer, outlined functions: %d / %d match (baseline %d)" % (outlined_ok, outlined, base_outlined))
    print("  reset -> infer, all such functions: %d / %d match (baseline %d)" % (all_ok, len(files), base_all))
    print("  idempotent (twice == once):        %d / %d" % (cnt("idem"), run_ok))
    print("  expected.pto is a fixed point:     %d / %d" % (cnt("fixed"), run_ok))
    print("  rejected with a located error:     %d" % rejected)
    for f, r in zip(files, res):
        if "outlined" in r and "outlined-ok" not in r:
            print("  outlined mismatch: %s" % f)
    for f in bad("rejected"):
        print("  rejected: %s" % f)
    status = 0
    for f in bad("error"):
        print("FAIL error: %s" % f)
        status = 1
    for f in bad("idem-fail"):
        print("FAIL not idempotent: %s" % f)
        status = 1
    if outlined_ok < base_outlined:
        print("FAIL outlined reset matches dropped below the baseline (%d < %d)" % (outlined_ok, base_outlined))
        status = 1
    if all_ok < base_all:
        print("FAIL reset matches dropped below the baseline (%d < %d)" % (all_ok, base_all))
        status = 1
    return status


# ---------------------------------------------------------------- fixpoint
def fixpoint(tool, dirs):
    seen, files = set(), []
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for root, _, fs in os.walk(d):
            for f in sorted(fs):
                if f.endswith(".pto"):
                    files.append(os.path.join(root, f))
    files.sort()
    texts = []
    for f in files:
        t = read(f)
        h = hashlib.md5(t).digest()
        if h not in seen:
            seen.add(h)
            texts.append((f, t))
    first = split_run(tool, [], [t for _, t in texts])

    def alone_print(i):
        o = first[i]
        if o is None:
            r = run(tool, [], texts[i][0])
            o = r.out if r.rc == 0 else None
        return o

    prints = pmap(alone_print, range(len(texts)))
    ok = [i for i, o in enumerate(prints) if o is not None]
    second = split_run(tool, [], [prints[i] for i in ok])
    fails = 0
    for i, o2 in zip(ok, second):
        if o2 == prints[i]:
            continue
        r = run(tool, ["-"], data=prints[i])
        if r.rc != 0:
            print("FAIL %s: its print does not parse: %s" % (texts[i][0], r.err.decode(errors="replace").split("\n")[0]))
            fails += 1
        elif r.out != prints[i]:
            print("FAIL %s: printing its print changes it" % texts[i][0])
            fails += 1
    print("print fixed point: %d inputs, %d failed" % (len(ok), fails))
    return 1 if fails else 0


# ---------------------------------------------------------------- jobs
PIPES = (["--passes=convert-to-ssa,outline-incore,outline-cluster"], ["--passes=pypto-default"])
MERGE = 8  # programs in one merged file


def split_class(src):
    """(header, methods, names) of a program that is plainly one class of
    decorated methods: the text up to the first method, the method lines
    (trailing blank lines dropped), the method names; None otherwise."""
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
    return lines[:first], body, names


def renamed(body, names, suffix):
    """The methods with every NAME (in its def and in self.NAME) NAME+suffix."""
    pat = re.compile(r"\b(self\.)(%s)\b" % "|".join(map(re.escape, names)))
    out = []
    for l in body:
        l = re.sub(r"^(    def )(\w+)\(", lambda m: m.group(1) + m.group(2) + suffix + "(", l)
        out.append(pat.sub(lambda m: m.group(1) + m.group(2) + suffix, l))
    return out


def header_key(header):
    """A program's text before its first method, its name left out."""
    return "\n".join(l for l in header if not l.startswith("# pypto.program:") and not l.startswith("class "))


def jobs(tool, tmp, cases, dirs):
    """The inputs: each file under DIRS as it is; of the corpus, programs
    no call joins merged MERGE at a time (those with the same header and
    that run through both pipelines; renamed copies, NAME__k), so that -j2
    has halves to cut between, and each failing program twice over (itself,
    then a renamed copy), so that its error is met in a part too."""
    inputs = []
    for d in dirs:
        for root, _, fs in os.walk(d):
            inputs += [os.path.join(root, f) for f in fs if f.endswith(".pto")]
    inputs.sort()
    if cases and os.path.isdir(cases):
        seen, progs = set(), []
        for n in case_dirs(cases, []):
            p = os.path.join(cases, n, "input.pto")
            if not os.path.exists(p):
                continue
            t = read(p).decode("utf-8", "surrogateescape")
            if t in seen:
                continue
            seen.add(t)
            sc = split_class(t)
            if sc:
                progs.append(sc)
        # which programs run through both pipelines (serially, batched)
        texts = [("\n".join(h + b) + "\n").encode("utf-8", "surrogateescape") for h, b, _ in progs]
        good = [all(o is not None for o in os) for os in zip(*(split_run(tool, a, texts) for a in PIPES))]
        n = 0

        def write(lines):
            nonlocal n
            n += 1
            path = os.path.join(tmp, "c%05d.pto" % n)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("\n".join(lines) + "\n")
            return path

        groups = {}
        for (h, b, names), g in zip(progs, good):
            if g:
                groups.setdefault(header_key(h), []).append((h, b, names))
            else:
                inputs.append(write(h + b + [""] + renamed(b, names, "__2")))
        for key in sorted(groups):
            ps = groups[key]
            for k in range(0, len(ps), MERGE):
                part = ps[k:k + MERGE]
                lines = list(part[0][0])
                for j, (h, b, names) in enumerate(part):
                    lines += ([""] if j else []) + renamed(b, names, "__%d" % (j + 1))
                inputs.append(write(lines))

    def same(job):
        path, args = job
        r1 = run(tool, ["-j1"] + args, path)
        r2 = run(tool, ["-j2"] + args, path)
        if (r1.rc, r1.out, r1.err) == (r2.rc, r2.out, r2.err):
            return None
        return "FAIL: %s %s (exit %d / %d)%s" % (path, " ".join(args), r1.rc, r2.rc,
                                                   "" if r1.out == r2.out else ", stdout differs")

    todo = [(p, a) for p in inputs for a in PIPES]
    bad = [m for m in pmap(same, todo) if m]
    for m in bad:
        print(m)
    print("jobs: %d runs compared, %d differing" % (len(todo), len(bad)))
    return 1 if bad else 0


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, tool = argv[1], os.path.abspath(argv[2])
    if cmd == "conformance":
        cases = argv[3]
        if not os.path.isdir(cases):
            print("corpus.py: %s not found; skipped" % cases)
            return 77
        return conformance(tool, cases, argv[4], argv[5:])
    if cmd == "directions":
        cases = argv[3]
        if not os.path.isdir(cases):
            print("corpus.py: %s not found; skipped" % cases)
            return 77
        return directions(tool, cases, int(argv[4]), int(argv[5]), argv[6:])
    if cmd == "fixpoint":
        return fixpoint(tool, argv[3:])
    if cmd == "jobs":
        rest = argv[4:]
        cases = None
        if rest[:1] == ["--cases"]:
            cases, rest = rest[1], rest[2:]
        return jobs(tool, argv[3], cases, rest)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
