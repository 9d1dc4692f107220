/* directions.c - In / Out / InOut of an outlined function's parameters
 * (passes.md §7 with the seed's registry rules, §9).
 *
 * Two flags per captured Var: written (a builtin argument slot the registry
 * declares Write or ReadWrite names it, it is an exported store target, or a
 * callee writes it) and read (any other use, including reads through the
 * SSA alias a pure-write result binds).  Write ? (read ? InOut : Out) : In.
 * Unrecognised uses count as reads, so mistakes err towards InOut. */
#include <stdlib.h>
#include <string.h>

#include "ptoopt/op_registry.h"
#include "ptoopt/outline.h"

static ArgAccess param_access(const OpDef *op, const OpsParam *pm, int i, const Expr *call)
{
	bool has = false;
	int64_t val = 0;
	if (pm->effect_kwarg)
		for (int k = 0; k < call->nkw; k++)
			if (strcmp(call->kw[k].name, pm->effect_kwarg) == 0) {
				const Expr *v = call->kw[k].value;
				has = true;
				if (v->kind == EX_INT || v->kind == EX_BOOL)
					val = v->ival;
				else if (v->kind == EX_SYMBOL) {
					/* a named enum member: its value as the kwarg declares
					 * it (or, in older entries, the parameter itself) */
					val = 1; /* other than the zero member */
					const OpsParam *kp = pm;
					for (int j = 0; j < op->nkwargs; j++)
						if (strcmp(op->kwargs[j].name, pm->effect_kwarg) == 0 && op->kwargs[j].nvalues)
							kp = &op->kwargs[j];
					for (int j = 0; j < kp->nvalues; j++)
						if (strcmp(kp->values[j].symbol, v->str) == 0)
							val = kp->values[j].value;
				}
			}
	OpsEffect e = pm->effect;
	if (i >= 0)
		e = ops_arg_effect(op, i, has, val);
	else if (pm->effect_kwarg && has &&
		 (pm->effect_nonzero ? val != 0 : pm->effect_equals.kind == OC_INT && pm->effect_equals.i == val))
		e = pm->effect_then;
	return e == EFF_WRITE ? ACC_WRITE : e == EFF_READWRITE ? ACC_READWRITE : ACC_READ;
}

/* The registry entry of an op call (NULL: not an op call, or unknown). */
static const OpDef *call_op(const Expr *call)
{
	return call->kind == EX_OP_CALL ? ops_find(ops_default(), call->str) : NULL;
}

/* Argument i's access under op (the call's entry, looked up once per call). */
static ArgAccess op_arg_access(const OpDef *op, const Expr *call, int i)
{
	if (!op)
		return ACC_READ;
	if (i >= 0)
		return i < op->nparams ? param_access(op, &op->params[i], i, call) : ACC_READ;
	const char *kn = call->kw[-i - 1].name;
	for (int k = 0; k < op->nkwargs; k++)
		if (strcmp(op->kwargs[k].name, kn) == 0)
			return param_access(op, &op->kwargs[k], -1, call);
	return ACC_READ;
}

/* The one place argument effects are looked up, so the source can change.
 * i >= 0: positional argument i; i < 0: keyword argument -i - 1. */
ArgAccess dir_arg_access(const Expr *call, int i)
{
	return op_arg_access(call_op(call), call, i);
}

typedef struct Dir {
	Program *p;
	PtrMap idx;    /* Var -> index + 1 (captured Vars and their aliases) */
	PtrMap input;  /* captured Vars only -> index + 1 */
	bool *read, *write;
	/* A whole function body (infer-directions) rather than a scope body:
	 * returning a parameter hands its buffer back (return lineage) and
	 * `v = param` only renames it, so neither moves data in. */
	bool whole_fn;
	/* A hierarchy scope exports no store targets: the caller sees the buffer
	 * through the parameter, so a tile.store destination earns no write
	 * (the Hierarchy exception, seed 000). */
	bool store_not_write;
} Dir;

static int lookup(const PtrMap *m, const Expr *e)
{
	if (!e || e->kind != EX_VAR)
		return -1;
	return (int)(uintptr_t)pmap_get(m, e->var) - 1;
}

static void scan_expr(Dir *s, const Expr *e);
static void scan_op(Dir *s, const Expr *e, const OpDef *op);

static bool bookkeeping_key(const char *k)
{
	return strcmp(k, "dump_vars") == 0 || strcmp(k, "arg_direction_overrides") == 0 ||
	       strcmp(k, "arg_direction_overrides_vars") == 0;
}

static void scan_attrs(Dir *s, const Expr *attrs)
{
	if (!attrs)
		return;
	for (int i = 0; i < attrs->nkw; i++)
		if (!bookkeeping_key(attrs->kw[i].name))
			scan_expr(s, attrs->kw[i].value);
}

/* A call to a user function: with callee lookup, an argument in an Out slot
 * is a write, not a read; In/InOut slots read, Out/InOut slots write. */
static void scan_user_call(Dir *s, const Expr *e)
{
	Function *callee = s->p ? ir_find_function(s->p, e->str) : NULL;
	for (int i = 0; i < e->nargs; i++) {
		int k = lookup(&s->input, e->args[i]);
		if (callee && i < callee->nparams) {
			ParamDir pd = callee->params[i].dir;
			if (k >= 0 && pd != DIR_IN)
				s->write[k] = true;
			if (pd == DIR_OUT)
				continue;
		}
		scan_expr(s, e->args[i]);
	}
	for (int i = 0; i < e->nkw; i++)
		scan_expr(s, e->kw[i].value);
	scan_attrs(s, e->attrs);
}

static void scan_expr(Dir *s, const Expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EX_VAR: {
		int k = lookup(&s->idx, e);
		if (k >= 0)
			s->read[k] = true;
		return;
	}
	case EX_OP_CALL:
		scan_op(s, e, call_op(e));
		return;
	case EX_FN_CALL: case EX_SUBMIT:
		scan_user_call(s, e);
		return;
	default:
		scan_expr(s, e->lhs);
		scan_expr(s, e->rhs);
		for (int i = 0; i < e->nargs; i++)
			scan_expr(s, e->args[i]);
		for (int i = 0; i < e->nkw; i++)
			scan_expr(s, e->kw[i].value);
		scan_attrs(s, e->attrs);
	}
}

/* Whether every argument of op's calls is only read (no declared effect,
 * no effect that a keyword can switch on): the common case, decided without
 * an access lookup per argument.  An unknown op (NULL) reads. */
static bool op_reads_only(const OpDef *op)
{
	return !op || op->reads_only;
}

static void scan_op(Dir *s, const Expr *e, const OpDef *op)
{
	if (op_reads_only(op)) {
		for (int i = 0; i < e->nargs; i++)
			scan_expr(s, e->args[i]);
		for (int i = 0; i < e->nkw; i++)
			scan_expr(s, e->kw[i].value);
		scan_attrs(s, e->attrs);
		return;
	}
	for (int i = 0; i < e->nargs; i++) {
		ArgAccess acc = op_arg_access(op, e, i);
		if (acc != ACC_READ && !(s->store_not_write && strcmp(e->str, "tile.store") == 0)) {
			int k = lookup(&s->input, e->args[i]);
			if (k >= 0)
				s->write[k] = true;
		}
		if (acc == ACC_WRITE)
			continue; /* a pure destination moves no data in */
		scan_expr(s, e->args[i]);
	}
	for (int i = 0; i < e->nkw; i++) {
		ArgAccess acc = op_arg_access(op, e, -i - 1);
		if (acc != ACC_READ) {
			int k = lookup(&s->input, e->kw[i].value);
			if (k >= 0)
				s->write[k] = true;
		}
		if (acc != ACC_WRITE)
			scan_expr(s, e->kw[i].value);
	}
	scan_attrs(s, e->attrs);
}

/* The destination an op call (entry op) writes in place when it has exactly
 * one Write slot. */
static const Expr *written_dest(const Expr *e, const OpDef *op)
{
	if (!e || e->kind != EX_OP_CALL || op_reads_only(op))
		return NULL;
	const Expr *dst = NULL;
	int n = 0;
	for (int i = 0; i < e->nargs; i++)
		if (op_arg_access(op, e, i) == ACC_WRITE) {
			dst = e->args[i];
			n++;
		}
	return n == 1 ? dst : NULL;
}

static void scan_block(Dir *s, const Block *b);

static void scan_vars(Dir *s, Var **vs, int n)
{
	for (int i = 0; i < n; i++) {
		int k = (int)(uintptr_t)pmap_get(&s->idx, vs[i]) - 1;
		if (k >= 0)
			s->read[k] = true;
	}
}

static void scan_stmt(Dir *s, const Stmt *st)
{
	switch (st->kind) {
	case ST_ASSIGN: {
		const Expr *v = st->value;
		const OpDef *op = v && v->kind == EX_OP_CALL ? call_op(v) : NULL;
		int k = lookup(&s->idx, written_dest(v, op));
		if (s->whole_fn && k < 0 && (k = lookup(&s->idx, v)) >= 0) {
			pmap_put(&s->idx, st->var, (void *)(uintptr_t)(k + 1));
			return;
		}
		if (k >= 0)
			pmap_put(&s->idx, st->var, (void *)(uintptr_t)(k + 1));
		if (v && v->kind == EX_OP_CALL)
			scan_op(s, v, op);
		else
			scan_expr(s, v);
		return;
	}
	case ST_EVAL:
		scan_expr(s, st->value);
		return;
	case ST_RETURN: case ST_YIELD:
		for (int i = 0; i < st->nvalues; i++)
			if (!(s->whole_fn && st->kind == ST_RETURN && lookup(&s->idx, st->values[i]) >= 0))
				scan_expr(s, st->values[i]);
		return;
	case ST_FOR: case ST_WHILE:
		scan_expr(s, st->start);
		scan_expr(s, st->stop);
		scan_expr(s, st->step);
		scan_expr(s, st->value);
		for (int i = 0; i < st->niter; i++)
			scan_expr(s, st->inits[i]);
		scan_block(s, &st->body);
		return;
	case ST_IF:
		scan_expr(s, st->value);
		scan_block(s, &st->body);
		scan_block(s, &st->orelse);
		return;
	case ST_SCOPE: {
		const Scope *sc = st->scope;
		scan_vars(s, sc->deps, sc->ndeps); /* dumps / no_dep_args are bookkeeping */
		scan_expr(s, sc->core_num);
		scan_expr(s, sc->predicate);
		scan_expr(s, sc->count);
		scan_block(s, &st->body);
		return;
	}
	default:
		return;
	}
}

static void scan_block(Dir *s, const Block *b)
{
	for (int i = 0; i < b->n; i++)
		scan_stmt(s, b->stmts[i]);
}

static void infer(Program *p, Var **inputs, int n, const Block *body, const PtrMap *exported, bool whole_fn,
		  bool store_not_write, ParamDir *out)
{
	Dir s = { .p = p, .whole_fn = whole_fn, .store_not_write = store_not_write };
	s.read = xmalloc((size_t)(n + 1) * sizeof *s.read);
	s.write = xmalloc((size_t)(n + 1) * sizeof *s.write);
	pmap_reserve(&s.idx, (size_t)n * 2);
	pmap_reserve(&s.input, (size_t)n);
	for (int i = 0; i < n; i++) {
		s.read[i] = s.write[i] = false;
		pmap_put(&s.idx, inputs[i], (void *)(uintptr_t)(i + 1));
		pmap_put(&s.input, inputs[i], (void *)(uintptr_t)(i + 1));
	}
	scan_block(&s, body);
	for (int i = 0; i < n; i++) {
		bool w = s.write[i] || (exported && pmap_get(exported, inputs[i]));
		out[i] = w ? (s.read[i] ? DIR_INOUT : DIR_OUT) : DIR_IN;
	}
	free(s.read);
	free(s.write);
	pmap_release(&s.idx);
	pmap_release(&s.input);
}

void dir_infer(Program *p, Var **inputs, int n, const Block *body, const PtrMap *exported, ParamDir *out)
{
	infer(p, inputs, n, body, exported, false, false, out);
}

void dir_infer_hierarchy(Var **inputs, int n, const Block *body, ParamDir *out)
{
	infer(NULL, inputs, n, body, NULL, false, true, out);
}

void dir_infer_function(Program *p, const Function *f, ParamDir *out)
{
	Var **inputs = xmalloc((size_t)(f->nparams + 1) * sizeof *inputs);
	for (int i = 0; i < f->nparams; i++)
		inputs[i] = f->params[i].var;
	/* No export set: a function's tile.store targets are already written
	 * through the registry's Write slot. */
	infer(p, inputs, f->nparams, &f->body, NULL, true, false, out);
	free(inputs);
}
