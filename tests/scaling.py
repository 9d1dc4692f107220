#!/usr/bin/env python3
"""Generator-driven stress test beyond the fuzzer's 8 KB inputs.

For each shape of program (a deep call chain, long if/elif chains, many
sequential loops, deeply nested loops, many outline-heavy functions) it
generates a valid program of size n and of size 4n, runs ptoopt on both with
the shape's passes and checks, for each:

  * exit status 0 and no sanitizer report;
  * the output re-parses and prints back unchanged (a fixed point);
  * linear time: user CPU(4n) / user CPU(n) <= RATIO_LIMIT (4 for linear,
    16 for quadratic; the limit leaves room for noise), both measured in
    this run, each the least of two runs.  User time, not system time: the
    kernel's cost of faulting in (huge) pages varies with the machine's
    memory state, and is what it is for any program.  When CPU(n) is below
    MIN_CPU the sizes are doubled until it is not, so that start-up time does
    not hide the growth.

usage: scaling.py PTOOPT [SHAPE...]
The generators write straight to files, one line at a time: linear by
construction.
"""
import os
import subprocess
import sys
import tempfile

RATIO_LIMIT = 8.0
MIN_CPU = 0.08
MAX_DOUBLINGS = 4

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n"


def call_chain(n, w):
    """f0 calls f1 calls ... f(n-1): as deep a call graph as there are functions."""
    w(HEAD)
    for i in range(n):
        w("    @pl.function(type=pl.FunctionType.InCore)\n")
        w(f"    def f{i}(self, x: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n")
        if i + 1 < n:
            w(f"        y: pl.Tensor[[64], pl.FP32] = self.f{i + 1}(x)\n        return y\n")
        else:
            w("        return x\n")


def elif_chains(n, w):
    """n/90 if/elif chains of 90 elifs each (the nesting limit allows 97)."""
    w(HEAD)
    w("    @pl.function\n")
    w("    def main(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n")
    w("        r: pl.Scalar[pl.INDEX] = b\n")
    for k in range(max(1, n // 90)):
        w(f"        if a < {k}:\n            r = r + 1\n")
        for i in range(1, 90):
            w(f"        elif a < {k + i}:\n            r = r + {i}\n")
        w("        else:\n            r = r + b\n")
    w("        return r\n")


def wide_loops(n, w):
    """One function, n sequential loops carrying a value, each with an InCore scope."""
    w(HEAD)
    w("    @pl.function(type=pl.FunctionType.Orchestration)\n")
    w("    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n")
    w("        acc: pl.Tensor[[64], pl.FP32] = x\n")
    for k in range(n):
        w(f"        for i{k} in pl.range(4):\n")
        w("            with pl.at(level=pl.Level.CORE_GROUP):\n")
        w("                acc = pl.tensor.add(acc, x)\n")
    w("        return acc\n")


def deep_loops(n, w):
    """n/40 nests of 40 loops each, a re-assigned variable innermost."""
    w(HEAD)
    w("    @pl.function\n")
    w("    def main(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n")
    w("        r: pl.Scalar[pl.INDEX] = a\n")
    for k in range(max(1, n // 40)):
        ind = "        "
        for d in range(40):
            w(f"{ind}for i{d} in pl.range(2):\n")
            ind += "    "
        w(f"{ind}r = r + i39\n")
    w("        return r\n")


def outline_heavy(n, w):
    """n functions, each a loop whose body holds an InCore scope and an if,
    then a cluster scope."""
    w(HEAD)
    for k in range(n):
        w("    @pl.function(type=pl.FunctionType.Orchestration)\n")
        w(f"    def f{k}(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:\n")
        w("        acc: pl.Tensor[[64], pl.FP32] = x\n")
        w("        for i in pl.range(n):\n")
        w("            with pl.at(level=pl.Level.CORE_GROUP):\n")
        w("                t: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, x)\n")
        w("            if i < 2:\n")
        w("                acc = pl.tensor.mul(t, x)\n")
        w("            else:\n")
        w("                acc = t\n")
        w("        with pl.cluster():\n")
        w("            with pl.at(level=pl.Level.CORE_GROUP):\n")
        w("                y: pl.Tensor[[64], pl.FP32] = pl.tensor.exp(acc)\n")
        w("        return y\n")


ALL_PASSES = "convert-to-ssa,outline-hierarchy,outline-incore,outline-cluster,infer-directions,derive-call-directions"
SHAPES = {
    # name: (generator, starting n, passes)
    "call_chain": (call_chain, 4000, ALL_PASSES),
    "elif_chains": (elif_chains, 9000, "convert-to-ssa"),
    "wide_loops": (wide_loops, 2000, "convert-to-ssa,outline-incore,outline-cluster"),
    "deep_loops": (deep_loops, 8000, "convert-to-ssa"),
    "outline_heavy": (outline_heavy, 1000, "convert-to-ssa,outline-incore,outline-cluster"),
}


def run(tool, args, path, out):
    """(exit code, CPU seconds of the child, stderr)"""
    with open(out, "wb") as o:
        p = subprocess.Popen([tool] + args + [path], stdout=o, stderr=subprocess.PIPE)
        _, err = p.communicate()
    # the rusage of exactly this child: resource's RUSAGE_CHILDREN sums all
    return p.returncode, p.cpu, err


class _Popen(subprocess.Popen):
    """Popen that records the child's own CPU time (wait4)."""
    cpu = 0.0

    def _try_wait(self, wait_flags):
        pid, sts, ru = os.wait4(self.pid, wait_flags)
        if pid == self.pid:
            self.cpu = ru.ru_utime
        return (pid, sts)


subprocess.Popen = _Popen


def generate(gen, n, path):
    with open(path, "w") as f:
        gen(n, f.write)
    return os.path.getsize(path)


def check_one(tool, name, path, passes, tmp):
    out = os.path.join(tmp, name + ".out")
    rc, cpu, err = run(tool, ["--passes=" + passes], path, out)
    if rc == 0:
        cpu = min(cpu, run(tool, ["--passes=" + passes], path, out)[1])
    why = None
    if rc != 0 or b"Sanitizer" in err or b"runtime error:" in err:
        why = f"exit code {rc}: {err.decode(errors='replace')[:300]}"
    else:
        back = os.path.join(tmp, name + ".back")
        rc2, _, err2 = run(tool, [], out, back)
        if rc2 != 0:
            why = f"its output does not re-parse: {err2.decode(errors='replace')[:300]}"
        elif open(out, "rb").read() != open(back, "rb").read():
            why = "its output does not print back unchanged"
        os.unlink(back)
    os.unlink(out)
    return cpu, why


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool = sys.argv[1]
    names = sys.argv[2:] or list(SHAPES)
    failed = []
    with tempfile.TemporaryDirectory(prefix="ptoopt-scaling.") as tmp:
        for name in names:
            if name not in SHAPES:
                print(f"FAIL {name}: no such shape")
                failed.append(name)
                continue
            gen, n, passes = SHAPES[name]
            small = os.path.join(tmp, name + "-small.pto")
            big = os.path.join(tmp, name + "-big.pto")
            why = None
            for _ in range(MAX_DOUBLINGS + 1):
                s1 = generate(gen, n, small)
                c1, why = check_one(tool, name, small, passes, tmp)
                if why or c1 >= MIN_CPU:
                    break
                n *= 2
            if not why:
                s4 = generate(gen, 4 * n, big)
                c4, why = check_one(tool, name, big, passes, tmp)
            # a ratio over the limit is measured once more before it counts:
            # on a loaded machine (meson runs two tests at once) one run of
            # the big input may take twice its time
            if not why and c4 / max(c1, 1e-3) > RATIO_LIMIT:
                c1 = min(c1, check_one(tool, name, small, passes, tmp)[0])
                c4 = min(c4, check_one(tool, name, big, passes, tmp)[0])
            if not why:
                ratio = c4 / max(c1, 1e-3)
                line = (f"{name:14s} n={n:<7d} {s1 / 1e6:6.2f} MB {c1:6.3f} s | 4n: {s4 / 1e6:6.2f} MB "
                        f"{c4:6.3f} s | ratio {ratio:4.1f} ({passes})")
                if ratio > RATIO_LIMIT:
                    why = f"not linear: CPU x{ratio:.1f} for x4 the input ({line})"
                else:
                    print("ok   " + line)
            for f in (small, big):
                if os.path.exists(f):
                    os.unlink(f)
            if why:
                print(f"FAIL {name}: {why}")
                failed.append(name)
    print(f"scaling: {len(names) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
