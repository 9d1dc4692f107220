#!/usr/bin/env python3
"""Static checks of a generated .pto file (no ptoopt needed).

    validate_gen.py FILE [--corpus DIR ...] [--show N]

Checks:
  1. layout: header, sorted `pl.dynamic` lines equal to the dims really used, no blank
     lines inside the class, 4-space indents, no tabs / trailing blanks, exactly one
     trailing newline;
  2. the text is valid Python (`ast.parse`);
  3. functions are in name order and every `self.f(...)` callee precedes its caller
     (so name order == the printer's callee-first order);
  4. name binding per function, following the reference parser's rules (scope leaking
     of plain for/if/with/while, non-leaking loops with init_values, if/for yields):
     every used name is bound; a re-assigned name is a visible plain Var with the same
     annotation (otherwise the parser makes a second Var and the printer renames it
     `x_1`); loop variables / iter args / yield targets are never re-used;
  5. optional (--corpus): every line, with names/numbers abstracted, has the same
     shape as some line of the conformance corpus; unseen shapes are listed.
"""

import argparse
import ast
import glob
import os
import re
import sys

KEEP = {"pl", "self", "pld", "True", "False", "None", "tuple", "if", "else", "for", "in",
        "while", "with", "as", "return", "and", "or", "not", "def", "class", "import", "pass",
        "break", "continue"}
TOK = re.compile(r'"[^"]*"|\'[^\']*\'|\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+|\d+|[A-Za-z_][A-Za-z_0-9]*|\S')


def shape_of(line):
    out = []
    for t in TOK.findall(line.strip()):
        prev = out[-1] if out else ""
        prev2 = out[-2] if len(out) > 1 else ""
        if t[0] in "\"'":
            t = "S"
        elif t[0].isdigit():
            t = "F" if ("." in t or "e" in t) else "N"
        elif (t[0].isalpha() or t[0] == "_") and t not in KEEP and (prev != "." or prev2 == "self"):
            t = "V"
        out.append(t)
    s = " ".join(out)
    # lists / argument lists of names and numbers of any length are one shape
    s = re.sub(r"(?:- )?[VNF](?: , (?:- )?[VNF])*", "L", s)
    return s


class Err(Exception):
    pass


class FnChecker:
    def __init__(self, fn, dyn, errors):
        self.fn = fn
        self.dyn = dyn
        self.errors = errors
        self.all_defs = {}      # name -> annotation text of the (single) Var with this name
        self.kind = {}          # name -> 'var' | 'iter' | 'loop' | 'tid'

    def err(self, node, msg):
        self.errors.append("%s line %d: %s" % (self.fn.name, getattr(node, "lineno", 0), msg))

    # scopes are lists of dicts name -> annotation ('?' for untyped)
    def lookup(self, scopes, n):
        for s in reversed(scopes):
            if n in s:
                return s[n]
        return None

    def use(self, scopes, node):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                n = sub.id
                if n in ("pl", "self", "pld", "True", "False") or n in self.dyn:
                    continue
                if self.lookup(scopes, n) is None:
                    self.err(sub, "use of unbound name %r" % n)

    def fresh_def(self, scopes, n, ann, node, kind):
        if n in self.all_defs:
            self.err(node, "%s %r re-uses an existing name (printer would rename it)" % (kind, n))
        self.all_defs[n] = ann
        self.kind[n] = kind
        scopes[-1][n] = ann

    def assign(self, scopes, n, ann, node):
        cur = self.lookup(scopes, n)
        if cur is None:
            if n in self.all_defs:
                self.err(node, "%r assigned where the earlier Var is not visible (new Var -> renamed)" % n)
            self.all_defs[n] = ann
            self.kind[n] = "var"
            scopes[-1][n] = ann
            return
        if self.kind.get(n) != "var":
            self.err(node, "assignment to %s %r creates a new Var (renamed)" % (self.kind.get(n), n))
            return
        if cur != ann:
            self.err(node, "re-assignment of %r with a different type: %s vs %s" % (n, cur, ann))

    def run(self):
        scopes = [dict()]
        args = self.fn.args.args
        for a in args:
            if a.arg == "self":
                continue
            ann = ast.unparse(a.annotation)
            m = re.match(r"pl\.(?:Out|InOut)\[(.*)\]$", ann)
            if m:
                ann = m.group(1)
            self.all_defs[a.arg] = ann
            self.kind[a.arg] = "var"
            scopes[-1][a.arg] = ann
        self.block(scopes, self.fn.body, top=True)

    @staticmethod
    def is_yield_call(v):
        return (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "yield_")

    def yield_targets(self, body):
        """LHS names of a block's final `... = pl.yield_(...)`."""
        if not body:
            return []
        last = body[-1]
        if isinstance(last, ast.AnnAssign) and self.is_yield_call(last.value):
            return [(last.target.id, ast.unparse(last.annotation))]
        if isinstance(last, ast.Assign) and self.is_yield_call(last.value):
            t = last.targets[0]
            if isinstance(t, ast.Tuple):
                return [(e.id, "?") for e in t.elts]
            return [(t.id, "?")]
        return []

    def block(self, scopes, body, top=False, yields_ok=False):
        for i, st in enumerate(body):
            last = i == len(body) - 1
            if isinstance(st, ast.AnnAssign):
                self.use(scopes, st.value)
                if self.is_yield_call(st.value):
                    if not (last and yields_ok):
                        self.err(st, "yield assignment not at the end of a yielding block")
                    continue  # bound by the enclosing construct
                self.assign(scopes, st.target.id, ast.unparse(st.annotation), st)
            elif isinstance(st, ast.Assign):
                self.use(scopes, st.value)
                if self.is_yield_call(st.value):
                    if not (last and yields_ok):
                        self.err(st, "yield assignment not at the end of a yielding block")
                    continue
                self.err(st, "unannotated assignment (not canonical)")
            elif isinstance(st, ast.Expr):
                self.use(scopes, st.value)
            elif isinstance(st, ast.Return):
                if st.value is not None:
                    self.use(scopes, st.value)
            elif isinstance(st, ast.For):
                self.for_stmt(scopes, st)
            elif isinstance(st, ast.While):
                self.use(scopes, st.test)
                scopes.append(dict())
                self.block(scopes, st.body)
                leaked = scopes.pop()
                scopes[-1].update(leaked)
            elif isinstance(st, ast.If):
                self.use(scopes, st.test)
                ty_then = self.yield_targets(st.body)
                ty_else = self.yield_targets(st.orelse)
                yielding = bool(ty_then or ty_else)
                scopes.append(dict())
                self.block(scopes, st.body, yields_ok=yielding)
                then = scopes.pop()
                if not yielding:
                    scopes[-1].update(then)
                scopes.append(dict())
                self.block(scopes, st.orelse, yields_ok=yielding)
                els = scopes.pop()
                if not yielding:
                    scopes[-1].update(els)
                else:
                    if [n for n, _ in ty_then] != [n for n, _ in ty_else]:
                        self.err(st, "if branches yield different names")
                    for n, ann in ty_then:
                        self.fresh_def(scopes, n, ann, st, "if return var")
            elif isinstance(st, ast.With):
                item = st.items[0]
                self.use(scopes, item.context_expr)
                if item.optional_vars is not None:
                    self.fresh_def(scopes, item.optional_vars.id, "TASK_ID", st, "task id")
                    self.kind[item.optional_vars.id] = "tid"
                scopes.append(dict())
                self.block(scopes, st.body)
                leaked = scopes.pop()
                scopes[-1].update(leaked)
            elif isinstance(st, ast.Pass):
                pass
            else:
                self.err(st, "unexpected statement %s" % type(st).__name__)

    def for_stmt(self, scopes, st):
        it = st.iter
        self.use(scopes, it)
        kind = it.func.attr if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) else "?"
        has_init = isinstance(it, ast.Call) and any(k.arg == "init_values" for k in it.keywords)
        tgt = st.target
        scopes.append(dict())
        if has_init:
            if kind == "while_":
                loopvar, iters = None, tgt.elts
            else:
                loopvar, iters = tgt.elts[0], tgt.elts[1].elts
            if loopvar is not None:
                self.fresh_def(scopes, loopvar.id, "pl.Scalar[pl.INDEX]", st, "loop var")
                self.kind[loopvar.id] = "loop"
            for e in iters:
                self.fresh_def(scopes, e.id, "?", st, "iter arg")
                self.kind[e.id] = "iter"
            self.block(scopes, st.body, yields_ok=True)
            scopes.pop()
            ys = self.yield_targets(st.body)
            if len(ys) != len(iters):
                self.err(st, "loop with %d iter args ends with %d yield targets" % (len(iters), len(ys)))
            for n, ann in ys:
                self.fresh_def(scopes, n, ann, st, "loop return var")
        else:
            self.fresh_def(scopes, tgt.id, "pl.Scalar[pl.INDEX]", st, "loop var")
            self.kind[tgt.id] = "loop"
            self.block(scopes, st.body)
            leaked = scopes.pop()
            scopes[-1].update(leaked)


def check_layout(text, errors):
    if not text.endswith("\n") or text.endswith("\n\n"):
        errors.append("file must end with exactly one newline")
    lines = text.split("\n")[:-1]
    if not lines[0].startswith("# pypto.program: "):
        errors.append("bad header line")
    prog = lines[0][len("# pypto.program: "):]
    if lines[1] != "import pypto.language as pl" or lines[2] != "":
        errors.append("bad import / blank line")
    i = 3
    dyn = []
    while lines[i].endswith('")') and "= pl.dynamic(" in lines[i]:
        m = re.match(r'^([A-Za-z_]\w*) = pl\.dynamic\("([^"]*)"\)$', lines[i])
        if not m or m.group(1) != m.group(2):
            errors.append("bad dynamic line %r" % lines[i])
        dyn.append(m.group(1))
        i += 1
    if dyn:
        if lines[i] != "":
            errors.append("missing blank line after pl.dynamic block")
        i += 1
    if dyn != sorted(dyn):
        errors.append("pl.dynamic lines not sorted")
    if lines[i] != "@pl.program" or lines[i + 1] != "class %s:" % prog:
        errors.append("bad @pl.program / class line")
    body = lines[i + 2:]
    used = set()
    dynset = set(dyn)
    for n, l in enumerate(body, i + 3):
        if l == "" or l.strip() == "":
            errors.append("blank line %d inside the class" % n)
        if "\t" in l or l != l.rstrip():
            errors.append("tab / trailing blank on line %d" % n)
        ind = len(l) - len(l.lstrip(" "))
        if ind % 4 or ind < 4:
            errors.append("bad indentation on line %d" % n)
        for name in re.findall(r"[A-Za-z_]\w*", l):
            if name in dynset:
                used.add(name)
    if used != dynset:
        errors.append("declared but unused dynamic dims: %s" % sorted(dynset - used))
    return dynset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--corpus", action="append", default=[],
                    help="directory whose */input.pto (recursively) define the allowed line shapes")
    ap.add_argument("--show", type=int, default=20, help="how many unseen shapes to print")
    a = ap.parse_args()
    text = open(a.file).read()
    errors = []
    dyn = check_layout(text, errors)
    tree = ast.parse(text)
    cls = [n for n in tree.body if isinstance(n, ast.ClassDef)][0]
    fns = [f for f in cls.body if isinstance(f, ast.FunctionDef)]
    names = [f.name for f in fns]
    if names != sorted(names):
        errors.append("functions are not in name order")
    if len(set(names)) != len(names):
        errors.append("duplicate function names")
    seen = set()
    for f in fns:
        for sub in ast.walk(f):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                if sub.attr not in seen:
                    errors.append("%s calls %s before it is defined" % (f.name, sub.attr))
        seen.add(f.name)
        FnChecker(f, dyn, errors).run()
    nerr = len(errors)
    for e in errors[:50]:
        print("ERROR:", e)
    if nerr > 50:
        print("... %d more errors" % (nerr - 50))
    print("%s: %d functions, %d lines, %d bytes, %d errors" % (a.file, len(fns), text.count("\n"), len(text.encode()), nerr))

    if a.corpus:
        allowed = set()
        for d in a.corpus:
            for p in glob.glob(os.path.join(d, "**", "input.pto"), recursive=True) + \
                    glob.glob(os.path.join(d, "**", "expected.pto"), recursive=True):
                for l in open(p):
                    allowed.add(shape_of(l))
        unseen = {}
        for l in text.split("\n"):
            s = shape_of(l)
            if s not in allowed:
                unseen.setdefault(s, [0, l.strip()])[0] += 1
        print("line shapes: %d distinct unseen in corpus" % len(unseen))
        for s, (c, ex) in sorted(unseen.items(), key=lambda kv: -kv[1][0])[:a.show]:
            print("  %6d  %s" % (c, ex[:230]))
    sys.exit(1 if nerr else 0)


if __name__ == "__main__":
    main()
