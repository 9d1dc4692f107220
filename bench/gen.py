#!/usr/bin/env python3
"""Generate large, realistic, CANONICAL PyPTO textual IR (.pto) programs for benchmarking ptoopt.

The output is one `@pl.program` in the exact form the reference printer emits
(`python_print(program, format=False)` plus one trailing newline), so that
`ptoopt FILE` (parse + print, no passes) must reproduce it byte for byte.

Every statement shape is copied from the conformance corpus
(shared/conformance/cases/{roundtrip,examples,lib}); only names, shapes and
literals vary.  Rules the generator relies on (spec: shared/spec/text-format.md):

* header `# pypto.program: NAME` / import / blank / sorted `X = pl.dynamic("X")` lines
  (only dims that are really used) / blank / `@pl.program` / `class NAME:`;
* functions are printed in name order, which equals callee-first order because a
  function only ever calls functions with a smaller number (`f000012_... < f000013_...`);
* no blank lines anywhere; 4-space indent; every assignment annotated with its
  inferred type; `self` only on non-SubWorker functions;
* `pl.range(stop)` / `pl.range(start, stop)` / `pl.range(start, stop, step)` elision;
* float literals in `%.17g` form (+ `.0`); no constant-only scalar sub-expressions;
* variable names are unique per function, except deliberate pre-SSA re-assignments
  of a visible plain Var with the same type (which the parser maps to the same Var,
  so the printer does not rename it).

Usage:
    gen.py --size 1M|10M|100M|BYTES [--seed N] [--style pre-ssa|single-assign|outline-heavy] [-o FILE]

The default `pre-ssa` style is what the passes consume: hand-written code as the
reference prints it, with variables re-assigned (`acc = pl.tensor.add(acc, x)` in
loops and if/else branches, `while` counters, parameters re-bound).  The
`single-assign` style drops every optional re-assignment; only the idiomatic
out-parameter updates (`out = pl.tile.store(t, off, out)`, `y = pl.tensor.assemble(y, ..)`,
`y = self.kernel(.., y)`) remain.

The `outline-heavy` style stresses the outliners: every function (Orchestration or
Opaque, about 2.9 KB) is

    acc = pl.tensor.muls(x, F)                        # re-assigned below (pre-SSA)
    for r in pl.range|pl.parallel(0, ROWS, TR):
        with pl.at(level=pl.Level.CORE_GROUP[, name_hint=..]):
            tile.load of x at [r, 0], a tile chain, y = pl.tile.store(.., [r, 0], y)
        if <r == 0 | r > TR | r % 2TR == 0 | flag | n_rows > TR>:
            buf = pl.tensor.create(..)                # or: tensor ops re-assigning acc
            with pl.at(..): .. buf = pl.tile.store(.., [r, 0], buf)
            acc = pl.tensor.add|mul|maximum(acc, buf)
        [else: the same choice]
    with pl.cluster([name_hint=..]):
        with pl.at(..): tile.load of x or acc, a tile chain, y = pl.tile.store(.., [0, 0], y)
    return y

so convert-to-ssa makes loop carries and phis, outline-incore outlines two or three
scopes per function (one inside the loop, one in a branch, one in the cluster) and
outline-cluster one Group function.  A branch's scope writes a buffer local to the
branch: a store into `y` there would make `y` a phi of a store target, which the
reference build (e2d0f78) mis-threads (its else branch then yields a Var of the then
branch, and its verifier rejects the result).  The reference's output for this style
differs from ptoopt's only where seed 000 is newer than that build: the scope's
parameter for a store into a loop-carried `y` (`y__iter_vN`) is `pl.Out`.
"""

import argparse
import random
import sys

# --------------------------------------------------------------------------- literals


def flit(v):
    """Float literal exactly as the reference prints it (%.17g, '.0' appended)."""
    s = "%.17g" % v
    if "." not in s and "e" not in s and "E" not in s:
        s += ".0"
    return s


FLOATS = [flit(v) for v in (1.0, 2.0, 3.0, 0.5, 1.5, 0.25, -1.0, 0.0078125, 0.00390625,
                            0.088388347648318447, 1e-6, 1e-5, 0.125, 4.0, 1.702)]
EPS = [flit(1e-6), flit(1e-5)]

DYN_NAMES = ["BATCH_DYN", "KV_ROWS_DYN", "M_DYN", "N_DYN", "ROWS_DYN", "SEQ_DYN", "TOKENS_DYN"]

COMMENTS = [
    "Load the input row block into the vector unit.",
    "Accumulate partial results across the reduction axis.",
    "Online softmax update (VECTOR).",
    "Cube InCore: compute a @ b and store the result to GM.",
    "Normalise by the row sum before writing back.",
    "Stage 1: projection.",
    "Stage 2: activation.",
    "Stage 3: residual add and store.",
    "Scale the block by the per-row factor.",
    "Ragged tail: the last tile may be partial.",
    "Per-core work split: each block handles one row tile.",
    "RMSNorm over the hidden dimension.",
    "Write the row tile back into the output buffer.",
    "Keep the running maximum for numerical stability.",
    "Reshape [1, n] -> [n, 1] for row_expand ops",
    "noqa: F841",
    "type: ignore[no-redef]",
    "TODO: fuse with the next kernel once the tiling is fixed.",
    "Sigmoid = 1 / (1 + exp(-x)).",
    "Double-buffered pipeline over K blocks.",
]

# --------------------------------------------------------------------------- types
# A type is a tuple:
#   ('T', shape, dtype)          tensor        shape: tuple of dims (int or str)
#   ('L', shape, dtype, mem)     tile
#   ('S', dtype)                 scalar
#   ('U', (t1, t2, ...))         tuple


def dims(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def ty(t):
    k = t[0]
    if k == "T":
        return "pl.Tensor[%s, pl.%s]" % (dims(t[1]), t[2])
    if k == "L":
        return "pl.Tile[%s, pl.%s, pl.Mem.%s]" % (dims(t[1]), t[2], t[3])
    if k == "S":
        return "pl.Scalar[pl.%s]" % t[1]
    if k == "U":
        return "pl.Tuple[%s]" % ", ".join(ty(e) for e in t[1])
    raise ValueError(t)


def T(shape, dt="FP32"):
    return ("T", tuple(shape), dt)


def L(shape, dt="FP32", mem="Vec"):
    return ("L", tuple(shape), dt, mem)


IDX = ("S", "INDEX")
F32S = ("S", "FP32")

# --------------------------------------------------------------------------- scalar expressions
# (text, precedence) pairs; precedence as in the printer:
# or 1, and 3, not 4, comparisons 5, << >> 9, + - 10, * / // % 11, unary 12, call 14, atom 15
PREC = {"or": 1, "and": 3, "==": 5, "!=": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
        "+": 10, "-": 10, "*": 11, "//": 11, "%": 11}


def atom(x):
    return (str(x), 15)


def binop(a, op, b):
    p = PREC[op]
    la = a[0] if a[1] >= p else "(" + a[0] + ")"
    rb = b[0] if b[1] > p else "(" + b[0] + ")"
    return (la + " " + op + " " + rb, p)


def call(fn, *args):
    return (fn + "(" + ", ".join(a[0] for a in args) + ")", 14)


def range_args(start, stop, step):
    """Canonical elision of pl.range/pl.parallel arguments (start/step are INDEX ints or names)."""
    if step == 1:
        if start == 0:
            return str(stop)
        return "%s, %s" % (start, stop)
    return "%s, %s, %s" % (start, stop, step)


# --------------------------------------------------------------------------- function builder


class Reassign(Exception):
    pass


class FB:
    """Builds the body of one function."""

    def __init__(self, g, name, ssa_style):
        self.g = g
        self.r = g.r
        self.name = name
        self.lines = []
        self.ind = 2
        self.ctr = 0
        self.ssa_style = ssa_style
        # scope frames: each frame is a dict name -> type of usable variables,
        # plus the set of names that may be re-assigned (plain Vars).
        self.frames = [dict()]
        self.reassignable = [set()]
        self.barrier = 0  # frames below this index may not be re-assigned
        self.hints = 0

    # ---- names
    def fresh(self, base):
        self.ctr += 1
        return "%s%d" % (base, self.ctr)

    def hint(self, base):
        self.hints += 1
        return "%s%d_%s" % (base, self.hints, self.name.split("_", 1)[0])

    def can_reassign(self, name):
        if self.ssa_style:
            return False
        for i in range(self.barrier, len(self.frames)):
            if name in self.reassignable[i] and self.frames[i].get(name) == self.lookup(name):
                return True
        return False

    def scope_begin(self):
        """Enter a block whose body may only re-assign its own variables."""
        self.push()
        saved = self.barrier
        self.barrier = len(self.frames) - 1
        return saved

    def scope_end(self, saved, leak=False, leak_pred=None):
        self.barrier = saved
        self.pop(leak, leak_pred)

    # ---- emission
    def emit(self, s):
        self.lines.append("    " * self.ind + s)

    def maybe_comment(self, p=0.06):
        if self.r.random() < p:
            self.emit("# " + self.r.choice(COMMENTS))

    # ---- environment
    def define(self, name, t, reassignable=True):
        self.frames[-1][name] = t
        if reassignable:
            self.reassignable[-1].add(name)

    def lookup(self, name):
        for f in reversed(self.frames):
            if name in f:
                return f[name]
        return None

    def visible(self, pred):
        out = []
        seen = set()
        for f in reversed(self.frames):
            for n, t in f.items():
                if n not in seen:
                    seen.add(n)
                    if pred(t):
                        out.append(n)
        out.sort()  # determinism independent of dict order subtleties
        return out

    def pick(self, pred):
        c = self.visible(pred)
        return self.r.choice(c) if c else None

    def pick2(self, pred):
        """Two visible names of a type, distinct when possible."""
        c = self.visible(pred)
        if not c:
            return None, None
        if len(c) == 1:
            return c[0], c[0]
        a, b = self.r.sample(c, 2)
        return a, b

    def reassign_target(self, t):
        """A visible plain Var of exactly type t that may be re-assigned here (pre-SSA style)."""
        if self.ssa_style:
            return None
        cands = []
        for i in range(self.barrier, len(self.frames)):
            for n in self.reassignable[i]:
                if self.frames[i].get(n) == t and self.lookup(n) == t:
                    cands.append(n)
        if not cands:
            return None
        cands.sort()
        return self.r.choice(cands)

    def push(self):
        self.frames.append(dict())
        self.reassignable.append(set())

    def pop(self, leak=False, leak_pred=None):
        f = self.frames.pop()
        ra = self.reassignable.pop()
        if leak:
            for n, t in f.items():
                if leak_pred is None or leak_pred(t):
                    self.frames[-1][n] = t
                    if n in ra:
                        self.reassignable[-1].add(n)

    def block(self):
        """Context: indented body."""
        fb = self

        class _B:
            def __enter__(self_):
                fb.ind += 1

            def __exit__(self_, *a):
                fb.ind -= 1
        return _B()

    def assign(self, base, t, expr, allow_reassign=True, p_reassign=0.35):
        """Emit `name: T = expr`; maybe re-using a visible Var of the same type."""
        name = None
        if allow_reassign and self.r.random() < p_reassign:
            name = self.reassign_target(t)
        if name is None:
            name = self.fresh(base)
            self.define(name, t)
        self.maybe_comment()
        self.emit("%s: %s = %s" % (name, ty(t), expr))
        return name


# --------------------------------------------------------------------------- generator


class Gen:
    def __init__(self, seed, ssa_style=False, outline_heavy=False):
        self.r = random.Random(seed)
        self.ssa_style = ssa_style
        self.outline_heavy = outline_heavy
        self.idx = 0
        self.used_dyn = set()
        # registry of generated callables, by family key
        self.kernels = {}   # family -> list of (name, sig)
        self.opaques = {}   # tensor type -> list of names (x, y) -> T
        self.families = []

    # ---- families ---------------------------------------------------------
    def new_family(self):
        r = self.r
        C = r.choice([64, 128, 128, 256])
        if r.random() < 0.25:
            rows = r.choice(DYN_NAMES)
            TR = r.choice([16, 32]) if C == 256 else r.choice([16, 32, 64])
            return ("dyn", rows, C, TR)
        R = r.choice([64, 128, 256, 512])
        TR = r.choice([t for t in (8, 16, 32, 64) if t <= R and t * C <= 16384])
        return ("static", R, C, TR)

    def family(self):
        if not self.families or self.r.random() < 0.15:
            self.families.append(self.new_family())
            if len(self.families) > 24:
                self.families.pop(0)
        return self.r.choice(self.families)

    def fam_type(self, fam):
        if fam[0] == "dyn":
            self.used_dyn.add(fam[1])
        return T((fam[1], fam[2]))

    # ---- program ----------------------------------------------------------
    def next_name(self, descr):
        self.idx += 1
        return "f%06d_%s" % (self.idx, descr)

    def gen_function(self):
        r = self.r
        if self.outline_heavy:
            return self.gen_outline_heavy()
        x = r.random()
        if x < 0.40:
            return self.gen_vector_kernel()
        if x < 0.50:
            return self.gen_matmul_kernel()
        if x < 0.78:
            return self.gen_orchestration()
        return self.gen_opaque()

    # ---- InCore vector kernel ----------------------------------------------
    def tile_chain(self, fb, TR, C, n, gamma=None, scale=None):
        """n tile statements on [TR, C] FP32 Vec tiles; returns name of last result."""
        r = self.r
        tt = L((TR, C))
        last = None
        for _ in range(n):
            srcs = fb.visible(lambda t: t == tt)
            a = r.choice(srcs)
            k = r.random()
            if k < 0.25:
                b = r.choice(srcs)
                op = r.choice(["add", "sub", "mul", "div", "maximum", "add", "mul"])
                last = fb.assign(r.choice(["t", "acc", "prod", "sum", "mix"]), tt,
                                 "pl.tile.%s(%s, %s)" % (op, a, b))
            elif k < 0.45:
                v = scale if (scale and r.random() < 0.4) else r.choice(FLOATS)
                last = fb.assign(r.choice(["scaled", "shifted", "t"]), tt,
                                 "pl.tile.%s(%s, %s)" % (r.choice(["adds", "muls"]), a, v))
            elif k < 0.60:
                op = r.choice(["exp", "recip", "sqrt", "relu", "neg"])
                last = fb.assign(op + "_t", tt, "pl.tile.%s(%s)" % (op, a))
            elif k < 0.70:
                # sigmoid-like nest, as in the FFN examples
                last = fb.assign("sig", tt, "pl.tile.recip(pl.tile.adds(pl.tile.exp(pl.tile.neg(%s)), 1.0))" % a)
            elif k < 0.82:
                tmp = fb.assign("tmp", tt, "pl.tile.create([%d, %d], dtype=pl.FP32, target_memory=pl.Mem.Vec)" % (TR, C),
                                p_reassign=0.0)
                red = r.choice(["row_sum", "row_max"])
                rv = fb.assign("row_" + red[4:], L((TR, 1)), "pl.tile.%s(%s, %s)" % (red, a, tmp))
                op = r.choice(["row_expand_div", "row_expand_sub", "row_expand_mul"])
                last = fb.assign("normed", tt, "pl.tile.%s(%s, %s)" % (op, a, rv))
            elif k < 0.90 and gamma:
                last = fb.assign("scaled", tt, "pl.tile.col_expand_mul(%s, %s)" % (a, gamma))
            elif k < 0.95:
                bf = fb.assign("bf", L((TR, C), "BF16"), "pl.tile.cast(%s, target_type=pl.BF16, mode='round')" % a,
                               p_reassign=0.0)
                last = fb.assign("back", tt, "pl.tile.cast(%s, target_type=pl.FP32, mode='round')" % bf)
            else:
                last = fb.assign("zero", tt, "pl.tile.full([%d, %d], dtype=pl.FP32, value=0.0)" % (TR, C),
                                 p_reassign=0.0)
        return last

    def gen_vector_kernel(self):
        r = self.r
        fam = self.family()
        kind, rows, C, TR = fam
        tt_full = self.fam_type(fam)
        name = self.next_name(r.choice(["add_kernel", "gelu_kernel", "rmsnorm_kernel", "softmax_kernel",
                                        "scale_kernel", "swiglu_kernel", "residual_kernel", "norm_kernel"]))
        fb = FB(self, name, self.ssa_style)
        nin = r.choice([1, 2, 2, 3])
        params = []
        ins = []
        for i in range(nin):
            pn = ["x", "y", "z"][i]
            ins.append(pn)
            params.append((pn, tt_full, "in"))
        gamma_p = None
        if r.random() < 0.3:
            gamma_p = "gamma"
            params.append((gamma_p, T((1, C)), "in"))
        scale_p = None
        if r.random() < 0.3:
            scale_p = "scale"
            params.append((scale_p, F32S, "in"))
        inout = r.random() < 0.15
        outp = "acc" if inout else "out"
        params.append((outp, tt_full, "inout" if inout else "out"))
        ntiles_p = None
        if kind == "dyn":
            ntiles_p = "n_tiles"
            params.append((ntiles_p, IDX, "in"))
        for pn, pt, _ in params:
            fb.define(pn, pt)
        fb.maybe_comment(0.5)

        gamma_t = None
        if gamma_p:
            gamma_t = fb.assign("g", L((1, C)), "pl.tile.load(%s, [0, 0], [1, %d], [1, %d], target_memory=pl.Mem.Vec)"
                                % (gamma_p, C, C), p_reassign=0.0)

        unrolled = [False]

        def body(row):
            for pn in ins:
                fb.assign(pn + "_tile", L((TR, C)),
                          "pl.tile.load(%s, [%s, 0], [%d, %d], [%d, %d], target_memory=pl.Mem.Vec)"
                          % (pn, row, TR, C, TR, C), p_reassign=0.2)
            if inout:
                fb.assign("prev", L((TR, C)), "pl.tile.load(%s, [%s, 0], [%d, %d], [%d, %d], target_memory=pl.Mem.Vec)"
                          % (outp, row, TR, C, TR, C), p_reassign=0.0)
            res = self.tile_chain(fb, TR, C, r.randint(2, 7), gamma_t, scale_p)
            if r.random() < 0.25:
                # if/else re-assigning the result (pre-SSA) or a fresh branch value
                cond_var = fb.pick(lambda t: t == IDX)
                cond = "%s == 0" % cond_var if cond_var else None
                if cond and res and fb.lookup(res) == L((TR, C)) and fb.can_reassign(res):
                    fb.maybe_comment()
                    fb.emit("if %s:" % cond)
                    with fb.block():
                        fb.emit("%s: %s = pl.tile.muls(%s, %s)" % (res, ty(L((TR, C))), res, r.choice(FLOATS)))
                    fb.emit("else:")
                    with fb.block():
                        fb.emit("%s: %s = pl.tile.adds(%s, %s)" % (res, ty(L((TR, C))), res, r.choice(FLOATS)))
            # an unrolled loop carries nothing (the reference's ConvertToSSA
            # cannot give one iter args): there the store rebinds no name
            if r.random() < 0.5 and not unrolled[0]:
                fb.emit("%s: %s = pl.tile.store(%s, [%s, 0], %s)" % (outp, ty(tt_full), res, row, outp))
            else:
                fb.emit("pl.tile.store(%s, [%s, 0], %s)" % (res, row, outp))

        if kind == "static" and TR == rows and r.random() < 0.5:
            body("0")
        else:
            loop = fb.fresh(r.choice(["i", "r", "rb", "tile_idx"]))
            if kind == "dyn":
                stop = ntiles_p
            else:
                stop = str(rows // TR)
            kindl = r.choice(["range", "range", "parallel", "pipeline", "unroll"])
            if kindl == "pipeline":
                hdr = "pl.pipeline(%s, stage=%d)" % (stop, r.choice([2, 3, 4]))
            elif kindl == "unroll" and kind == "static":
                hdr = "pl.unroll(%s)" % stop
            else:
                hdr = "pl.%s(%s)" % ("parallel" if kindl == "parallel" else "range", stop)
            fb.maybe_comment(0.2)
            fb.emit("for %s in %s:" % (loop, hdr))
            unrolled[0] = hdr.startswith("pl.unroll")
            # an unrolled body re-assigns only its own variables
            saved_barrier = fb.scope_begin() if unrolled[0] else None
            if not unrolled[0]:
                fb.push()
            fb.define(loop, IDX, reassignable=False)
            with fb.block():
                row = fb.fresh("row")
                fb.emit("%s: %s = %s" % (row, ty(IDX), binop(atom(loop), "*", atom(TR))[0]))
                fb.define(row, IDX, reassignable=False)
                body(row)
            if unrolled[0]:
                fb.scope_end(saved_barrier)
            else:
                fb.pop()
            unrolled[0] = False
        fb.emit("return %s" % outp)
        sig = self.sig_text(params, [tt_full], self_param=False)
        hdr = "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)"
        self.kernels.setdefault(fam, []).append((name, params, [tt_full]))
        return self.finish(hdr, name, sig, fb)

    # ---- InCore matmul kernel ---------------------------------------------
    def gen_matmul_kernel(self):
        r = self.r
        M = r.choice([16, 32, 64])
        K = r.choice([64, 128, 256])
        N = r.choice([64, 128])
        dt = r.choice(["FP32", "BF16", "BF16"])
        KT = r.choice([k for k in (32, 64) if k * 2 <= K])
        name = self.next_name(r.choice(["matmul_kernel", "proj_kernel", "qk_matmul", "sv_matmul"]))
        fb = FB(self, name, self.ssa_style)
        params = [("a", T((M, K), dt), "in"), ("b", T((K, N), dt), "in"), ("out", T((M, N)), "out")]
        for pn, pt, _ in params:
            fb.define(pn, pt)
        fb.maybe_comment(0.6)
        a1 = fb.assign("a_l1", L((M, KT), dt, "Mat"), "pl.tile.load(a, [0, 0], [%d, %d], [%d, %d], target_memory=pl.Mem.Mat)"
                       % (M, KT, M, KT))
        b1 = fb.assign("b_l1", L((KT, N), dt, "Mat"), "pl.tile.load(b, [0, 0], [%d, %d], [%d, %d], target_memory=pl.Mem.Mat)"
                       % (KT, N, KT, N))
        a0 = fb.assign("a_l0a", L((M, KT), dt, "Left"), "pl.tile.move(%s, target_memory=pl.Mem.Left)" % a1)
        b0 = fb.assign("b_l0b", L((KT, N), dt, "Right"), "pl.tile.move(%s, target_memory=pl.Mem.Right)" % b1)
        acc_t = L((M, N), "FP32", "Acc")
        acc = fb.assign("c_l0c", acc_t, "pl.tile.matmul(%s, %s)" % (a0, b0))
        nk = K // KT
        fb.maybe_comment(0.3)
        k = fb.fresh("kb")
        it = fb.fresh("acc_iter")
        fb.emit("for %s, (%s,) in pl.range(1, %d, init_values=(%s,)):" % (k, it, nk, acc))
        saved_barrier = fb.scope_begin()
        fb.define(k, IDX, reassignable=False)
        fb.define(it, acc_t, reassignable=False)
        with fb.block():
            koff = fb.fresh("koff")
            fb.emit("%s: %s = %s" % (koff, ty(IDX), binop(atom(k), "*", atom(KT))[0]))
            ak = fb.assign("a_l1_k", L((M, KT), dt, "Mat"),
                           "pl.tile.load(a, [0, %s], [%d, %d], [%d, %d], target_memory=pl.Mem.Mat)" % (koff, M, KT, M, KT))
            bk = fb.assign("b_l1_k", L((KT, N), dt, "Mat"),
                           "pl.tile.load(b, [%s, 0], [%d, %d], [%d, %d], target_memory=pl.Mem.Mat)" % (koff, KT, N, KT, N))
            ak0 = fb.assign("a_l0a_k", L((M, KT), dt, "Left"), "pl.tile.move(%s, target_memory=pl.Mem.Left)" % ak)
            bk0 = fb.assign("b_l0b_k", L((KT, N), dt, "Right"), "pl.tile.move(%s, target_memory=pl.Mem.Right)" % bk)
            nacc = fb.fresh("acc_next")
            fb.emit("%s: %s = pl.tile.matmul_acc(%s, %s, %s)" % (nacc, ty(acc_t), it, ak0, bk0))
            rv = fb.fresh("c_acc")
            fb.emit("%s: %s = pl.yield_(%s)" % (rv, ty(acc_t), nacc))
        fb.scope_end(saved_barrier)
        fb.define(rv, acc_t, reassignable=False)
        if r.random() < 0.5:
            fb.emit("out: %s = pl.tile.store(%s, [0, 0], out)" % (ty(T((M, N))), rv))
        else:
            fb.emit("pl.tile.store(%s, [0, 0], out)" % rv)
        fb.emit("return out")
        sig = self.sig_text(params, [T((M, N))], self_param=False)
        hdr = "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)"
        self.kernels.setdefault(("mm", M, K, N, dt), []).append((name, params, [T((M, N))]))
        return self.finish(hdr, name, sig, fb)

    # ---- shared bits for Orchestration / Opaque -----------------------------
    def tensor_chain(self, fb, tt, n):
        """n tensor-level statements on type tt (FP32 2-D); returns last result name."""
        r = self.r
        shape = tt[1]
        last = None
        for _ in range(n):
            srcs = fb.visible(lambda t: t == tt)
            a = r.choice(srcs)
            k = r.random()
            if k < 0.25:
                b = r.choice(srcs)
                op = r.choice(["add", "sub", "mul", "maximum", "add", "mul", "div"])
                last = fb.assign(r.choice(["h", "mixed", "res", "acc"]), tt, "pl.tensor.%s(%s, %s)" % (op, a, b))
            elif k < 0.50:
                sv = None
                if r.random() < 0.15:
                    sv = fb.pick(lambda t: t == F32S)
                v = sv or r.choice(FLOATS)
                last = fb.assign(r.choice(["scaled", "biased", "h"]), tt,
                                 "pl.tensor.%s(%s, %s)" % (r.choice(["adds", "muls"]), a, v))
            elif k < 0.62:
                op = r.choice(["exp", "neg", "recip", "sqrt", "abs"])
                last = fb.assign(op + "_v", tt, "pl.tensor.%s(%s)" % (op, a))
            elif k < 0.70:
                last = fb.assign("sigmoid", tt, "pl.tensor.recip(pl.tensor.adds(pl.tensor.exp(pl.tensor.neg(%s)), 1.0))" % a)
            elif k < 0.85 and len(shape) == 2:
                red = r.choice(["row_sum", "row_max"])
                rv = fb.assign(red[4:] + "_col", T((shape[0], 1)), "pl.tensor.%s(%s)" % (red, a))
                op = r.choice(["row_expand_div", "row_expand_sub", "row_expand_mul"])
                last = fb.assign("normed", tt, "pl.tensor.%s(%s, %s)" % (op, a, rv))
            elif k < 0.93:
                bf = fb.assign("h_bf16", T(shape, "BF16"), "pl.tensor.cast(%s, target_type=pl.BF16, mode='round')" % a,
                               p_reassign=0.0)
                last = fb.assign("h_f32", tt, "pl.tensor.cast(%s, target_type=pl.FP32, mode='round')" % bf)
            else:
                last = fb.assign("zeros", tt, "pl.tensor.full(%s, dtype=pl.FP32, value=0.0)" % dims(shape),
                                 p_reassign=0.0)
        return last

    def scalar_stmt(self, fb):
        """Some INDEX scalar arithmetic on visible INDEX scalars."""
        r = self.r
        an, bn = fb.pick2(lambda t: t == IDX)
        if an is None:
            return None
        a, b = atom(an), atom(bn)
        k = r.random()
        if k < 0.3:
            e = binop(binop(a, "*", atom(r.choice([8, 16, 32, 64]))), "+", b)
        elif k < 0.5:
            e = call("pl.min", atom(r.choice([8, 16, 64])), binop(a, "-", b))
        elif k < 0.65:
            c = r.choice([16, 32, 128])
            e = binop(binop(binop(a, "+", atom(c)), "-", atom(1)), "//", atom(c))
        elif k < 0.8:
            e = call("pl.max", a, b)
        else:
            e = binop(a, r.choice(["//", "%"]), atom(r.choice([2, 4, 8])))
        n = fb.fresh(r.choice(["off", "lim", "nb", "idx", "base"]))
        fb.maybe_comment()
        fb.emit("%s: %s = %s" % (n, ty(IDX), e[0]))
        fb.define(n, IDX, reassignable=False)
        return n

    def cond_expr(self, fb):
        r = self.r
        idxs = fb.visible(lambda t: t == IDX)
        bools = fb.visible(lambda t: t == ("S", "BOOL"))
        if bools and r.random() < 0.3:
            return r.choice(bools)
        if not idxs:
            return None
        an, bn = fb.pick2(lambda t: t == IDX)
        a = atom(an)
        k = r.random()
        if k < 0.4:
            return binop(a, "==", atom(0))[0]
        if k < 0.6:
            return binop(a, r.choice(["<", ">", ">=", "!="]), atom(r.choice([1, 2, 4])))[0]
        if k < 0.8:
            return binop(binop(a, "%", atom(2)), "==", atom(0))[0]
        if an == bn:
            return binop(a, "<", atom(r.choice([8, 16])))[0]
        return binop(binop(a, ">", atom(0)), "and", binop(a, "<", atom(bn)))[0]

    def if_else_block(self, fb, tt):
        """Plain if/else re-assigning a visible tensor of type tt (pre-SSA), or computing fresh temps."""
        r = self.r
        cond = self.cond_expr(fb)
        if cond is None:
            return
        tgt = fb.reassign_target(tt)
        fb.maybe_comment(0.2)
        fb.emit("if %s:" % cond)
        for branch in (0, 1):
            if branch:
                if r.random() < 0.15 and tgt:
                    return  # no else
                fb.emit("else:")
            fb.push()
            with fb.block():
                n = r.randint(1, 3)
                last = self.tensor_chain(fb, tt, n)
                if tgt and last != tgt:
                    src = fb.pick(lambda t: t == tt)
                    fb.emit("%s: %s = pl.tensor.%s(%s, %s)" % (tgt, ty(tt), r.choice(["add", "mul", "sub"]), tgt, last or src))
            fb.pop()

    def iter_loop_block(self, fb, tt):
        """for i, (acc,) in pl.range(..., init_values=(x,)): ... r = pl.yield_(..)."""
        r = self.r
        two = r.random() < 0.3
        init, init2 = fb.pick2(lambda t: t == tt)
        i = fb.fresh(r.choice(["i", "k", "step"]))
        it1 = fb.fresh("carry")
        it2 = fb.fresh("carry") if two else None
        n = r.choice([2, 3, 4, 5, 8, 10, 16])
        fb.maybe_comment(0.2)
        if two:
            fb.emit("for %s, (%s, %s) in pl.range(%d, init_values=(%s, %s)):" % (i, it1, it2, n, init, init2))
        else:
            fb.emit("for %s, (%s,) in pl.range(%d, init_values=(%s,)):" % (i, it1, n, init))
        saved = fb.scope_begin()
        fb.define(i, IDX, reassignable=False)
        fb.define(it1, tt, reassignable=False)
        if two:
            fb.define(it2, tt, reassignable=False)
        with fb.block():
            y1 = self.tensor_chain(fb, tt, r.randint(1, 4))
            nv1 = fb.fresh("upd")
            other = fb.pick(lambda t: t == tt)
            fb.emit("%s: %s = pl.tensor.add(%s, %s)" % (nv1, ty(tt), it1, y1 or other))
            fb.define(nv1, tt)
            if two:
                nv2 = fb.fresh("upd")
                fb.emit("%s: %s = pl.tensor.muls(%s, %s)" % (nv2, ty(tt), it2, r.choice(FLOATS)))
            if r.random() < 0.3 and not two:
                # if with yields inside the carried loop (corpus: ssa-if_in_loop_*)
                ph = fb.fresh("sel")
                fb.emit("if %s == 0:" % i)
                with fb.block():
                    tmp = fb.fresh("first")
                    fb.emit("%s: %s = pl.tensor.muls(%s, %s)" % (tmp, ty(tt), nv1, r.choice(FLOATS)))
                    fb.emit("%s: %s = pl.yield_(%s)" % (ph, ty(tt), tmp))
                fb.emit("else:")
                with fb.block():
                    fb.emit("%s: %s = pl.yield_(%s)" % (ph, ty(tt), nv1))
                nv1 = ph
            rv1 = fb.fresh("res")
            if two:
                rv2 = fb.fresh("res")
                fb.emit("%s, %s = pl.yield_(%s, %s)" % (rv1, rv2, nv1, nv2))
            else:
                fb.emit("%s: %s = pl.yield_(%s)" % (rv1, ty(tt), nv1))
        fb.scope_end(saved)
        fb.define(rv1, tt, reassignable=False)
        if two:
            fb.define(rv2, tt, reassignable=False)

    def while_block(self, fb, tt):
        r = self.r
        lim = fb.pick(lambda t: t == IDX)
        if lim is None:
            return
        k = fb.fresh("it")
        fb.emit("%s: %s = 0" % (k, ty(IDX)))
        fb.define(k, IDX, reassignable=False)
        fb.maybe_comment(0.2)
        fb.emit("while %s < %s:" % (k, lim))
        fb.push()
        with fb.block():
            last = self.tensor_chain(fb, tt, r.randint(1, 3))
            tgt = fb.reassign_target(tt)
            if tgt and last and tgt != last:
                fb.emit("%s: %s = pl.tensor.add(%s, %s)" % (tgt, ty(tt), tgt, last))
            fb.emit("%s: %s = %s + 1" % (k, ty(IDX), k))
        fb.pop()

    # ---- scopes (Orchestration / Opaque) -----------------------------------
    def incore_rows_block(self, fb, fam, src, out):
        """for r in pl.parallel(0, R, TR): with pl.at(CORE_GROUP, name_hint=...): slice/ops/assemble"""
        r = self.r
        kind, rows, C, TR = fam
        full = self.fam_type(fam)
        rv = fb.fresh(r.choice(["r", "row0", "b0"]))
        if kind == "dyn":
            hdr = "pl.parallel(0, %s, %d)" % ("n_rows", TR)
        else:
            hdr = "pl.%s(%s)" % (r.choice(["parallel", "range"]), range_args(0, rows, TR))
        fb.maybe_comment(0.3)
        fb.emit("for %s in %s:" % (rv, hdr))
        fb.push()
        fb.define(rv, IDX, reassignable=False)
        with fb.block():
            opts = ""
            if r.random() < 0.1:
                opts = ", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]"
            if r.random() < 0.75:
                fb.emit('with pl.at(level=pl.Level.CORE_GROUP%s, name_hint="%s"):' % (opts, fb.hint(r.choice(["rows", "blk", "norm_rows", "ffn"]))))
            else:
                fb.emit("with pl.at(level=pl.Level.CORE_GROUP%s):" % opts)
            saved = fb.scope_begin()
            with fb.block():
                tt = T((TR, C))
                fb.assign("tile_x", tt, "pl.tensor.slice(%s, [%d, %d], [%s, 0])" % (src, TR, C, rv), p_reassign=0.0)
                if r.random() < 0.3:
                    w = fb.pick(lambda t: t == T((C, C)))
                    if w:
                        fb.assign("proj", tt, "pl.tensor.matmul(%s, %s, a_trans=False, b_trans=False, c_matrix_nz=False, out_dtype=pl.FP32)"
                                  % (fb.pick(lambda t: t == tt), w), p_reassign=0.0)
                last = self.tensor_chain(fb, tt, r.randint(2, 8))
                fb.emit("%s: %s = pl.tensor.assemble(%s, %s, [%s, 0])" % (out, ty(full), out, last, rv))
            fb.scope_end(saved)
        fb.pop()

    def spmd_tile_block(self, fb, fam, src, out, in_cluster=False):
        """for b in pl.spmd(N[, name_hint=..]): tile load/ops/store (corpus: cluster-outline_spmd_for_loop_*)"""
        r = self.r
        kind, rows, C, TR = fam
        full = self.fam_type(fam)
        b = fb.fresh(r.choice(["blk", "core", "b"]))
        if kind == "dyn":
            cnt = binop(atom("n_rows"), "//", atom(TR))[0] if not in_cluster else "4"
        else:
            cnt = str(min(rows // TR, 48))
        extra = ""
        if r.random() < 0.6:
            extra = ', name_hint="%s_spmd"' % fb.hint(r.choice(["proj", "act", "norm", "mix"]))
        if not in_cluster and r.random() < 0.15:
            extra = ", sync_start=True" + extra
        fb.maybe_comment(0.2)
        fb.emit("for %s in pl.spmd(%s%s):" % (b, cnt, extra))
        saved = fb.scope_begin()
        fb.define(b, IDX, reassignable=False)
        with fb.block():
            off = fb.fresh("offset")
            fb.emit("%s: %s = %s" % (off, ty(IDX), binop(atom(b), "*", atom(TR))[0]))
            fb.define(off, IDX, reassignable=False)
            fb.assign("tile_a", L((TR, C)), "pl.tile.load(%s, [%s, 0], [%d, %d], [%d, %d], target_memory=pl.Mem.Vec)"
                      % (src, off, TR, C, TR, C), p_reassign=0.0)
            res = self.tile_chain(fb, TR, C, r.randint(1, 5))
            fb.emit("%s: %s = pl.tile.store(%s, [%s, 0], %s)" % (out, ty(full), res, off, out))
        fb.scope_end(saved)

    def incore_plain_block(self, fb, tt, cluster=False):
        r = self.r
        hdr = "with pl.at(level=pl.Level.CORE_GROUP):"
        if r.random() < 0.3:
            hdr = 'with pl.at(level=pl.Level.CORE_GROUP, name_hint="%s"):' % fb.hint(r.choice(["fused", "epilogue", "prologue"]))
        fb.maybe_comment(0.2)
        if cluster:
            if r.random() < 0.3:
                fb.emit('with pl.cluster(name_hint="%s"):' % fb.hint("grp"))
            else:
                fb.emit("with pl.cluster():")
            fb.ind += 1
        fb.emit(hdr)
        saved = fb.scope_begin()
        with fb.block():
            self.tensor_chain(fb, tt, r.randint(1, 5))
        fb.scope_end(saved, leak=True, leak_pred=lambda t: t[0] == "T")
        if cluster:
            fb.ind -= 1

    def call_kernel_stmt(self, fb, fam, out):
        """out = self.kernel(args..., out) with a registered kernel of this family."""
        r = self.r
        ks = self.kernels.get(fam)
        if not ks:
            return False
        kname, kparams, rets = r.choice(ks[-8:])
        full = self.fam_type(fam)
        args = []
        for pn, pt, d in kparams:
            if d in ("out", "inout"):
                args.append(out)
            elif pt == full:
                args.append(fb.pick(lambda t: t == full))
            elif pt == F32S:
                v = fb.pick(lambda t: t == F32S)
                args.append(v or r.choice(FLOATS))
            elif pt == IDX:
                args.append(fb.pick(lambda t: t == IDX) or "4")
            elif pt[0] == "T":
                v = fb.pick(lambda t, pt=pt: t == pt)
                if v is None:
                    v = fb.assign("ones", pt, "pl.tensor.full(%s, dtype=pl.FP32, value=1.0)" % dims(pt[1]), p_reassign=0.0)
                args.append(v)
            else:
                return False
        callexpr = "self.%s(%s)" % (kname, ", ".join(args))
        k = r.random()
        if k < 0.15:
            fb.maybe_comment(0.2)
            fb.emit("with pl.spmd(%d%s):" % (r.choice([2, 4, 8]), ", sync_start=True" if r.random() < 0.3 else ""))
            with fb.block():
                fb.emit("%s: %s = %s" % (out, ty(full), callexpr))
        elif k < 0.25:
            fb.maybe_comment(0.2)
            fb.emit("with pl.cluster():")
            with fb.block():
                fb.emit("with pl.spmd(%d):" % r.choice([4, 8]))
                with fb.block():
                    fb.emit("%s: %s = %s" % (out, ty(full), callexpr))
        else:
            fb.maybe_comment()
            fb.emit("%s: %s = %s" % (out, ty(full), callexpr))
        return True

    # ---- Orchestration -------------------------------------------------------
    def gen_orchestration(self):
        r = self.r
        fam = self.family()
        kind, rows, C, TR = fam
        full = self.fam_type(fam)
        name = self.next_name(r.choice(["layer", "decode_block", "prefill_block", "ffn_orch", "attn_orch", "forward"]))
        fb = FB(self, name, self.ssa_style)
        params = [("x", full, "in")]
        if r.random() < 0.6:
            params.append(("residual", full, "in"))
        if r.random() < 0.3:
            params.append(("w", T((C, C)), "in"))
        if r.random() < 0.3:
            params.append(("scale", F32S, "in"))
        if r.random() < 0.2:
            params.append(("flag", ("S", "BOOL"), "in"))
        params.append(("y", full, "out"))
        if kind == "dyn":
            params.append(("n_rows", IDX, "in"))
        elif r.random() < 0.3:
            params.append(("n_iter", IDX, "in"))
        for pn, pt, _ in params:
            fb.define(pn, pt)
        fb.maybe_comment(0.5)
        nblocks = r.randint(3, 7)
        for _ in range(nblocks):
            k = r.random()
            if k < 0.25:
                if not self.call_kernel_stmt(fb, fam, "y"):
                    self.incore_rows_block(fb, fam, "x", "y")
            elif k < 0.45:
                src = fb.pick(lambda t: t == full)
                self.incore_rows_block(fb, fam, src, "y")
            elif k < 0.60:
                src = fb.pick(lambda t: t == full)
                if r.random() < 0.25:
                    fb.maybe_comment(0.2)
                    fb.emit("with pl.cluster():")
                    with fb.block():
                        self.spmd_tile_block(fb, fam, src, "y", in_cluster=True)
                else:
                    self.spmd_tile_block(fb, fam, src, "y")
            elif k < 0.70:
                # intermediate buffer + kernel call (corpus: examples vector_dag / ffn)
                if kind == "static" or r.random() < 0.5:
                    buf = fb.assign("buf", full, "pl.tensor.create(%s, dtype=pl.FP32, layout=pl.TensorLayout.ND)" % dims(full[1]),
                                    p_reassign=0.0)
                    if not self.call_kernel_stmt(fb, fam, buf):
                        fb.emit("%s: %s = pl.tensor.assemble(%s, x, [0, 0])" % (buf, ty(full), buf))
                else:
                    self.call_kernel_stmt(fb, fam, "y")
            elif k < 0.80:
                self.incore_plain_block(fb, full, cluster=r.random() < 0.35)
            elif k < 0.88:
                # scope with a task id and a dependent scope
                tid = fb.fresh("tid")
                fb.emit("with pl.at(level=pl.Level.CORE_GROUP) as %s:" % tid)
                saved = fb.scope_begin()
                with fb.block():
                    self.tensor_chain(fb, full, r.randint(1, 3))
                fb.scope_end(saved, leak=True, leak_pred=lambda t: t[0] == "T")
                fb.emit("with pl.at(level=pl.Level.CORE_GROUP, deps=[%s]):" % tid)
                saved = fb.scope_begin()
                with fb.block():
                    self.tensor_chain(fb, full, r.randint(1, 3))
                fb.scope_end(saved, leak=True, leak_pred=lambda t: t[0] == "T")
            elif k < 0.95:
                cond = None
                if fb.lookup("flag"):
                    cond = "flag"
                elif fb.lookup("n_rows"):
                    cond = "n_rows > %d" % TR
                elif fb.lookup("n_iter"):
                    cond = "n_iter > 0"
                if cond:
                    fb.maybe_comment(0.2)
                    fb.emit("if %s:" % cond)
                    fb.push()
                    with fb.block():
                        self.incore_plain_block(fb, full)
                    fb.pop()
                else:
                    self.incore_plain_block(fb, full)
            else:
                # sequential loop re-dispatching a kernel (loop-carried pre-SSA var)
                lv = fb.fresh("step")
                n = "n_iter" if fb.lookup("n_iter") else str(r.choice([2, 4, 8]))
                fb.maybe_comment(0.2)
                fb.emit("for %s in pl.range(%s):" % (lv, n))
                fb.push()
                fb.define(lv, IDX, reassignable=False)
                with fb.block():
                    if not self.call_kernel_stmt(fb, fam, "y"):
                        self.incore_plain_block(fb, full)
                fb.pop()
        fb.emit("return y")
        sig = self.sig_text(params, [full], self_param=True)
        hdr = "@pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)"
        return self.finish(hdr, name, sig, fb)

    # ---- Opaque ----------------------------------------------------------------
    def gen_opaque(self):
        r = self.r
        if r.random() < 0.35:
            shape = (r.choice([64, 128, 256, 512]),)
        else:
            shape = (r.choice([16, 32, 64]), r.choice([64, 128]))
        tt = T(shape)
        name = self.next_name(r.choice(["helper", "update", "combine", "residual", "accumulate", "mix"]))
        fb = FB(self, name, self.ssa_style)
        params = [("x", tt, "in"), ("y", tt, "in")]
        dyn_dim = None
        if r.random() < 0.15:
            dyn_dim = r.choice(DYN_NAMES)
            self.used_dyn.add(dyn_dim)
            params.append(("table", T((dyn_dim, 128)), "in"))
        if r.random() < 0.5:
            params.append(("n", IDX, "in"))
        if r.random() < 0.2:
            params.append(("cond", ("S", "BOOL"), "in"))
        for pn, pt, _ in params:
            fb.define(pn, pt)
        has_scope = False
        fb.maybe_comment(0.4)
        if dyn_dim:
            m = fb.fresh("m")
            fb.emit("%s: %s = pl.tensor.dim(table, 0)" % (m, ty(IDX)))
            fb.define(m, IDX, reassignable=False)
        # a couple of plain statements first so there is something to re-assign
        fb.assign("acc", tt, "pl.tensor.muls(x, %s)" % r.choice(FLOATS), p_reassign=0.0)
        nblocks = r.randint(3, 7)
        for _ in range(nblocks):
            k = r.random()
            if k < 0.25:
                self.tensor_chain(fb, tt, r.randint(1, 4))
                if r.random() < 0.3:
                    self.scalar_stmt(fb)
            elif k < 0.42:
                lv = fb.fresh(r.choice(["i", "j", "t"]))
                stop = (fb.pick(lambda t: t == IDX) if r.random() < 0.3 else None) or str(r.choice([2, 3, 4, 5, 8]))
                fb.maybe_comment(0.2)
                fb.emit("for %s in pl.range(%s):" % (lv, stop))
                fb.push()
                fb.define(lv, IDX, reassignable=False)
                with fb.block():
                    if r.random() < 0.3:
                        self.scalar_stmt(fb)
                    if r.random() < 0.5:
                        self.if_else_block(fb, tt)
                    else:
                        last = self.tensor_chain(fb, tt, r.randint(1, 3))
                        tgt = fb.reassign_target(tt)
                        if tgt and last and tgt != last:
                            fb.emit("%s: %s = pl.tensor.add(%s, %s)" % (tgt, ty(tt), tgt, last))
                fb.pop()
            elif k < 0.60:
                self.iter_loop_block(fb, tt)
            elif k < 0.68 and not self.ssa_style:
                self.while_block(fb, tt)
            elif k < 0.78:
                self.if_else_block(fb, tt)
            elif k < 0.88 and len(shape) == 2:
                # scalar read + tensor op with a scalar operand (corpus: tensor.read / pl.cast)
                v = fb.fresh("val")
                src = fb.pick(lambda t: t == tt)
                fb.emit("%s: %s = pl.tensor.read(%s, [0, 0])" % (v, ty(F32S), src))
                fb.define(v, F32S, reassignable=False)
                fb.assign("shifted", tt, "pl.tensor.adds(%s, %s)" % (src, v))
            elif k < 0.95:
                self.incore_plain_block(fb, tt, cluster=r.random() < 0.3)
                has_scope = True
            else:
                ops = self.opaques.get(tt)
                if ops:
                    callee = r.choice(ops[-6:])
                    a = fb.pick(lambda t: t == tt)
                    b = fb.pick(lambda t: t == tt)
                    fb.assign("sub", tt, "self.%s(%s, %s)" % (callee, a, b))
                else:
                    self.tensor_chain(fb, tt, 2)
        ret = fb.pick(lambda t: t == tt)
        fb.emit("return %s" % ret)
        sig = self.sig_text(params, [tt], self_param=True)
        if len(params) == 2:
            self.opaques.setdefault(tt, []).append(name)
        return self.finish("@pl.function", name, sig, fb)

    # ---- outline-heavy style -------------------------------------------------
    def oh_incore_tiles(self, fb, fam, row, src, out, hint_base):
        """with pl.at(CORE_GROUP[, name_hint]): tile.load rows of src at `row`, a tile chain,
        out = pl.tile.store(.., [row, 0], out)."""
        r = self.r
        kind, rows, C, TR = fam
        full = self.fam_type(fam)
        if r.random() < 0.5:
            fb.emit('with pl.at(level=pl.Level.CORE_GROUP, name_hint="%s"):' % fb.hint(hint_base))
        else:
            fb.emit("with pl.at(level=pl.Level.CORE_GROUP):")
        saved = fb.scope_begin()
        with fb.block():
            fb.assign("tile_a", L((TR, C)), "pl.tile.load(%s, [%s, 0], [%d, %d], [%d, %d], target_memory=pl.Mem.Vec)"
                      % (src, row, TR, C, TR, C), p_reassign=0.0)
            res = self.tile_chain(fb, TR, C, r.randint(1, 4), None, fb.lookup("scale") and "scale")
            fb.emit("%s: %s = pl.tile.store(%s, [%s, 0], %s)" % (out, ty(full), res, row, out))
        fb.scope_end(saved)

    def gen_outline_heavy(self):
        """One loop whose body holds an InCore scope and an if, then a cluster scope."""
        r = self.r
        fam = self.family()
        kind, rows, C, TR = fam
        full = self.fam_type(fam)
        orch = r.random() < 0.5
        name = self.next_name(r.choice(["stage", "layer", "block_step", "fused_rows", "attn_step", "ffn_step"]))
        fb = FB(self, name, False)
        params = [("x", full, "in")]
        if r.random() < 0.6:
            params.append(("residual", full, "in"))
        if r.random() < 0.3:
            params.append(("scale", F32S, "in"))
        if r.random() < 0.25:
            params.append(("flag", ("S", "BOOL"), "in"))
        params.append(("y", full, "out"))
        if kind == "dyn":
            params.append(("n_rows", IDX, "in"))
        for pn, pt, _ in params:
            fb.define(pn, pt, reassignable=(pn != "y"))
        fb.maybe_comment(0.4)
        # a loop-carried pre-SSA variable the if re-assigns
        acc = fb.assign("acc", full, "pl.tensor.muls(x, %s)" % r.choice(FLOATS), p_reassign=0.0)
        rv = fb.fresh(r.choice(["r", "row0", "b"]))
        if kind == "dyn":
            hdr = "pl.%s(0, n_rows, %d)" % (r.choice(["parallel", "range"]), TR)
        else:
            hdr = "pl.%s(%s)" % (r.choice(["parallel", "range"]), range_args(0, rows, TR))
        fb.maybe_comment(0.3)
        fb.emit("for %s in %s:" % (rv, hdr))
        fb.push()
        fb.define(rv, IDX, reassignable=False)
        with fb.block():
            self.oh_incore_tiles(fb, fam, rv, "x", "y", r.choice(["rows", "blk", "norm_rows"]))
            if fb.lookup("flag") and r.random() < 0.4:
                cond = "flag"
            elif kind == "dyn" and r.random() < 0.3:
                cond = "n_rows > %d" % TR
            else:
                cond = r.choice(["%s == 0" % rv, "%s > %d" % (rv, TR), "%s %% %d == 0" % (rv, 2 * TR)])
            fb.maybe_comment(0.2)
            fb.emit("if %s:" % cond)
            for branch in (0, 1):
                if branch:
                    if r.random() < 0.2:
                        break  # no else
                    fb.emit("else:")
                fb.push()
                with fb.block():
                    if r.random() < 0.45:
                        # a branch-local buffer written by an InCore scope, then folded into acc
                        # (storing into y here would make y a phi of a store target, which the
                        # reference build mis-threads when the other branch does not store)
                        buf = fb.assign("buf", full, "pl.tensor.create(%s, dtype=pl.FP32, layout=pl.TensorLayout.ND)"
                                        % dims(full[1]), allow_reassign=False)
                        self.oh_incore_tiles(fb, fam, rv, r.choice(["x", acc]), buf, r.choice(["tail", "fix"]))
                        fb.emit("%s: %s = pl.tensor.%s(%s, %s)" % (acc, ty(full), r.choice(["add", "mul", "maximum"]),
                                                               acc, buf))
                    else:
                        last = self.tensor_chain(fb, full, r.randint(1, 3))
                        other = fb.pick(lambda t: t == full)
                        if last != acc:
                            fb.emit("%s: %s = pl.tensor.%s(%s, %s)" % (acc, ty(full), r.choice(["add", "mul", "sub"]),
                                                                   acc, last or other))
                fb.pop()
        fb.pop()
        fb.maybe_comment(0.2)
        if r.random() < 0.3:
            fb.emit('with pl.cluster(name_hint="%s"):' % fb.hint("grp"))
        else:
            fb.emit("with pl.cluster():")
        with fb.block():
            self.oh_incore_tiles(fb, fam, "0", r.choice(["x", acc]), "y", "epilogue")
        fb.emit("return y")
        sig = self.sig_text(params, [full], self_param=True)
        if orch:
            hdr = "@pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)"
        else:
            hdr = "@pl.function"
        return self.finish(hdr, name, sig, fb)

    # ---- text --------------------------------------------------------------------
    def sig_text(self, params, rets, self_param):
        ps = []
        if self_param:
            ps.append("self")
        for pn, pt, d in params:
            if d == "out":
                ps.append("%s: pl.Out[%s]" % (pn, ty(pt)))
            elif d == "inout":
                ps.append("%s: pl.InOut[%s]" % (pn, ty(pt)))
            else:
                ps.append("%s: %s" % (pn, ty(pt)))
        if len(rets) == 1:
            rt = " -> " + ty(rets[0])
        elif rets:
            rt = " -> tuple[" + ", ".join(ty(t) for t in rets) + "]"
        else:
            rt = ""
        return "(" + ", ".join(ps) + ")" + rt

    def finish(self, hdr, name, sig, fb):
        return "    %s\n    def %s%s:\n%s\n" % (hdr, name, sig, "\n".join(fb.lines))


def parse_size(s):
    s = s.strip().upper()
    mult = 1
    if s.endswith("K"):
        mult, s = 1000, s[:-1]
    elif s.endswith("M"):
        mult, s = 1000 * 1000, s[:-1]
    elif s.endswith("G"):
        mult, s = 1000 * 1000 * 1000, s[:-1]
    return int(float(s) * mult)


def generate(target, seed, ssa_style=False, prog="BenchProgram", outline_heavy=False):
    g = Gen(seed, ssa_style, outline_heavy)
    funcs = []
    total = 0
    # rough header size; the exact header is prepended at the end
    header_est = 200 + 40 * len(DYN_NAMES)
    while total + header_est < target or not funcs:
        f = g.gen_function()
        funcs.append(f)
        total += len(f)
    head = ["# pypto.program: %s" % prog, "import pypto.language as pl", ""]
    if g.used_dyn:
        for d in sorted(g.used_dyn):
            head.append('%s = pl.dynamic("%s")' % (d, d))
        head.append("")
    head.append("@pl.program")
    head.append("class %s:" % prog)
    return "\n".join(head) + "\n", funcs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1M", help="target size: 1M, 10M, 100M, 500K or a byte count (default 1M)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (output is a pure function of seed, size, style)")
    ap.add_argument("--style", choices=["pre-ssa", "single-assign", "outline-heavy"], default="pre-ssa",
                    help="pre-ssa (default): hand-written style with re-assigned variables; "
                         "single-assign: no optional re-assignments (out-parameter updates remain); "
                         "outline-heavy: every function a loop holding an InCore scope and an if, "
                         "then a cluster scope")
    ap.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    a = ap.parse_args()
    target = parse_size(a.size)
    head, funcs = generate(target, a.seed, a.style == "single-assign", outline_heavy=a.style == "outline-heavy")
    out = sys.stdout if a.output == "-" else open(a.output, "w", newline="\n")
    try:
        out.write(head)
        out.write("".join(funcs))  # each function text ends with '\n'; file ends with exactly one '\n'
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()
