/* derive_call_directions.c - the reference's DeriveCallDirections
 * (passes.md §8): every call of a program function gets
 * attrs={"arg_directions": [pl.adir.*, ...]}.
 *
 * Phase 0 raises Group / Spmd wrapper parameter directions to what their
 * inner calls do with them (fixed point, never demoting).  Then, per
 * function: buffer roots (which Var owns the buffer a Var names), first
 * writers (the call that first writes a root, at the top level of the
 * body), and finally each argument's direction: In -> input, InOut ->
 * inout, Out -> output_existing unless the write may not be the first
 * (inside a sequential loop, an ambiguous buffer, an earlier writer, or an
 * InOut parameter of the caller), which makes it inout.  Calls that already
 * carry arg_directions are left alone, so the pass is idempotent.
 */
#include <stdlib.h>
#include <string.h>

#include "ptoopt/passes.h"

typedef struct Root {
	Var *root;        /* NULL: no buffer root */
	bool ambiguous;
	Var **tuple;      /* roots of a tuple-valued call's Out/InOut args */
	bool *tuple_amb;  /* and whether each is ambiguous */
	int ntuple;
} Root;

typedef struct Dcd {
	Program *prog;
	Arena *a;
	Function *fn;
	PtrMap roots;     /* Var -> Root */
	PtrMap first;     /* call Expr -> bool[nargs]: this call first writes arg k's root */
	int seq_depth;
} Dcd;

static Function *callee_of(Dcd *c, const Expr *e)
{
	if (!e || (e->kind != EX_FN_CALL && e->kind != EX_SUBMIT))
		return NULL;
	return ir_find_function(c->prog, e->str);
}

static ParamDir param_dir(const Function *f, int k)
{
	return k < f->nparams ? f->params[k].dir : DIR_IN;
}

/* ------------------------------------------------------------ phase 0 */

static int param_index(const Function *f, const Var *v)
{
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].var == v)
			return i;
	return -1;
}

static bool is_wrapper(const Function *f) { return f->type == FT_GROUP || f->type == FT_SPMD; }

static bool raise_from_expr(Dcd *c, Function *w, const Expr *e);

static bool raise_from_block(Dcd *c, Function *w, const Block *b)
{
	bool changed = false;
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		changed |= raise_from_expr(c, w, s->value);
		for (int j = 0; j < s->nvalues; j++)
			changed |= raise_from_expr(c, w, s->values[j]);
		if (ir_stmt_is_simple(s->kind))
			continue;
		changed |= raise_from_block(c, w, &s->body);
		changed |= raise_from_block(c, w, &s->orelse);
	}
	return changed;
}

/* Promote w's parameters passed to inner kernels to the kernels' directions. */
static bool raise_from_expr(Dcd *c, Function *w, const Expr *e)
{
	if (!e || e->kind == EX_VAR) /* a leaf, and no call */
		return false;
	bool changed = raise_from_expr(c, w, e->lhs);
	changed |= raise_from_expr(c, w, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		changed |= raise_from_expr(c, w, e->args[i]);
	Function *f = callee_of(c, e);
	if (!f || f->type == FT_ORCHESTRATION || f->type == FT_OPAQUE)
		return changed;
	int n = e->nargs < f->nparams ? e->nargs : f->nparams;
	for (int k = 0; k < n; k++) {
		if (e->args[k]->kind != EX_VAR)
			continue;
		int p = param_index(w, e->args[k]->var);
		if (p >= 0 && f->params[k].dir > w->params[p].dir) {
			w->params[p].dir = f->params[k].dir;
			changed = true;
		}
	}
	return changed;
}

static void materialize_wrappers(Dcd *c)
{
	/* wrappers only ever rise, so iterating to a fixed point terminates */
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < c->prog->nfuncs; i++)
			if (is_wrapper(c->prog->funcs[i]))
				changed |= raise_from_block(c, c->prog->funcs[i], &c->prog->funcs[i]->body);
	}
}

/* ------------------------------------------------------------ phase 1 */

static Root *root_of_var(Dcd *c, const Var *v) { return pmap_get(&c->roots, v); }

static Root *new_root(Dcd *c, Var *v, Var *root, bool ambiguous)
{
	Root *r = arena_alloc(c->a, sizeof *r);
	r->root = root;
	r->ambiguous = ambiguous;
	pmap_put(&c->roots, v, r);
	return r;
}

static Var *expr_root(Dcd *c, const Expr *e, bool *ambiguous)
{
	if (!e || e->kind != EX_VAR)
		return NULL;
	Root *r = root_of_var(c, e->var);
	if (!r)
		return NULL;
	if (r->ambiguous)
		*ambiguous = true;
	return r->root;
}

static bool is_op(const Expr *e, const char *name)
{
	return e && e->kind == EX_OP_CALL && strcmp(e->str, name) == 0;
}

static bool same_shape_dtype(const Type *a, const Type *b)
{
	if (!a || !b || a->kind != TY_TENSOR || b->kind != TY_TENSOR || a->dtype != b->dtype || a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++) {
		const Expr *x = a->shape[i], *y = b->shape[i];
		if (x != y && !(x->kind == EX_INT && y->kind == EX_INT && x->ival == y->ival) &&
		    !(x->kind == EX_VAR && y->kind == EX_VAR && x->var == y->var))
			return false;
	}
	return true;
}

static const Stmt *trailing_yield(const Block *b)
{
	while (b->n > 0) {
		const Stmt *last = b->stmts[b->n - 1];
		if (last->kind == ST_YIELD)
			return last;
		if (last->kind == ST_SCOPE && (last->scope->kind == SC_RUNTIME || last->scope->kind == SC_SPLIT_AIV)) {
			b = &last->body;
			continue;
		}
		return NULL;
	}
	return NULL;
}

/* Merge candidate roots: one distinct root -> it; several, or a mix of
 * resolved and unresolved -> ambiguous (first candidate kept). */
typedef struct Cands {
	Var *first;
	bool any_null, distinct, ambiguous;
	int n;
} Cands;

static void cand_add(Cands *cs, Var *r, bool ambiguous)
{
	cs->n++;
	cs->ambiguous |= ambiguous;
	if (!r) {
		cs->any_null = true;
		return;
	}
	if (!cs->first)
		cs->first = r;
	else if (cs->first != r)
		cs->distinct = true;
}

static void cand_define(Dcd *c, Var *v, const Cands *cs)
{
	if (!cs->first)
		return;
	new_root(c, v, cs->first, cs->ambiguous || cs->distinct || cs->any_null);
}

static bool runs_at_least_once(const Stmt *s)
{
	if (s->kind != ST_FOR)
		return false;
	if (s->start->kind != EX_INT || s->stop->kind != EX_INT || s->step->kind != EX_INT || s->step->ival == 0)
		return false;
	int64_t span = s->stop->ival - s->start->ival;
	return s->step->ival > 0 ? span > 0 : span < 0;
}

static void roots_block(Dcd *c, const Block *b);

static void roots_assign(Dcd *c, const Stmt *s)
{
	const Expr *v = s->value;
	bool amb = false;
	if (is_op(v, "tensor.create") || is_op(v, "tensor.slice")) {
		new_root(c, s->var, s->var, false);
	} else if (is_op(v, "tensor.assemble") && v->nargs == 3) {
		Var *r = expr_root(c, v->args[0], &amb);
		if (r)
			new_root(c, s->var, r, amb);
	} else if (v->kind == EX_VAR) {
		Var *r = expr_root(c, v, &amb);
		if (r)
			new_root(c, s->var, r, amb);
	} else if (v->kind == EX_GETITEM && v->lhs->kind == EX_VAR) {
		Root *t = root_of_var(c, v->lhs->var);
		if (t && t->tuple && v->ival < t->ntuple && t->tuple[v->ival])
			new_root(c, s->var, t->tuple[v->ival], t->tuple_amb[v->ival]);
	} else if (callee_of(c, v)) {
		Function *f = callee_of(c, v);
		Type *rt = s->var->type;
		int n = v->nargs < f->nparams ? v->nargs : f->nparams;
		if (rt && rt->kind == TY_TUPLE) {
			Root *r = new_root(c, s->var, NULL, false);
			r->tuple = arena_alloc(c->a, (size_t)(n + 1) * sizeof *r->tuple);
			r->tuple_amb = arena_alloc(c->a, (size_t)(n + 1) * sizeof *r->tuple_amb);
			for (int k = 0; k < n; k++) {
				if (f->params[k].dir == DIR_IN)
					continue;
				r->tuple_amb[r->ntuple] = false;
				r->tuple[r->ntuple] = expr_root(c, v->args[k], &r->tuple_amb[r->ntuple]);
				r->ntuple++;
			}
			return;
		}
		/* the reference's choice (kFirstOutput): the one Out / InOut
		 * argument; else the one whose type is the result's, when the
		 * matching ones agree; else the first */
		Var *r0 = NULL, *match = NULL;
		bool amb0 = false, amb_match = false, nomatch = false;
		int nout = 0;
		for (int k = 0; k < n; k++) {
			if (f->params[k].dir == DIR_IN)
				continue;
			bool ak = false;
			Var *rk = expr_root(c, v->args[k], &ak);
			if (nout++ == 0) {
				r0 = rk;
				amb0 = ak;
			}
			if (!rk || !same_shape_dtype(ir_expr_type(v->args[k]), rt))
				continue;
			if (!match) {
				match = rk;
				amb_match = ak;
			} else if (match != rk || amb_match != ak) {
				nomatch = true;
			}
		}
		if (nout > 1 && match && !nomatch) {
			r0 = match;
			amb0 = amb_match;
		}
		if (r0)
			new_root(c, s->var, r0, amb0);
	}
}

static void roots_stmt(Dcd *c, const Stmt *s)
{
	switch (s->kind) {
	case ST_ASSIGN:
		roots_assign(c, s);
		return;
	case ST_FOR: case ST_WHILE: {
		for (int i = 0; i < s->niter; i++) {
			bool amb = false;
			Var *r = expr_root(c, s->inits[i], &amb);
			if (r)
				new_root(c, s->iter_args[i], r, amb);
		}
		roots_block(c, &s->body);
		const Stmt *y = trailing_yield(&s->body);
		bool once = runs_at_least_once(s);
		for (int i = 0; i < s->nrets; i++) {
			Cands cs = { 0 };
			bool amb = false;
			if (y && i < y->nvalues) {
				Var *r = expr_root(c, y->values[i], &amb);
				cand_add(&cs, r, amb);
			}
			if (!once && i < s->niter) {
				amb = false;
				Var *r = expr_root(c, s->inits[i], &amb);
				cand_add(&cs, r, amb);
			}
			cand_define(c, s->rets[i], &cs);
		}
		return;
	}
	case ST_IF: {
		roots_block(c, &s->body);
		roots_block(c, &s->orelse);
		const Stmt *ty = trailing_yield(&s->body), *ey = trailing_yield(&s->orelse);
		for (int i = 0; i < s->nrets; i++) {
			Cands cs = { 0 };
			bool amb = false;
			if (ty && i < ty->nvalues)
				cand_add(&cs, expr_root(c, ty->values[i], &amb), amb);
			amb = false;
			if (ey && i < ey->nvalues)
				cand_add(&cs, expr_root(c, ey->values[i], &amb), amb);
			cand_define(c, s->rets[i], &cs);
		}
		return;
	}
	case ST_SCOPE:
		roots_block(c, &s->body);
		return;
	default:
		return;
	}
}

static void roots_block(Dcd *c, const Block *b)
{
	for (int i = 0; i < b->n; i++)
		roots_stmt(c, b->stmts[i]);
}

/* ------------------------------------------------------------ phase 2 */

static void written_roots_expr(Dcd *c, const Expr *e, PtrMap *seen)
{
	if (!e || e->kind == EX_VAR) /* a leaf, and no call */
		return;
	written_roots_expr(c, e->lhs, seen);
	written_roots_expr(c, e->rhs, seen);
	for (int i = 0; i < e->nargs; i++)
		written_roots_expr(c, e->args[i], seen);
	Function *f = callee_of(c, e);
	if (!f)
		return;
	for (int k = 0; k < e->nargs && k < f->nparams; k++) {
		bool amb = false;
		Var *r = f->params[k].dir != DIR_IN ? expr_root(c, e->args[k], &amb) : NULL;
		if (r)
			pmap_put(seen, r, r);
	}
}

static void written_roots_block(Dcd *c, const Block *b, PtrMap *seen)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		written_roots_expr(c, s->value, seen);
		for (int j = 0; j < s->nvalues; j++)
			written_roots_expr(c, s->values[j], seen);
		if (ir_stmt_is_simple(s->kind))
			continue;
		written_roots_block(c, &s->body, seen);
		written_roots_block(c, &s->orelse, seen);
	}
}

static void copy_set(PtrMap *dst, const PtrMap *src)
{
	for (size_t i = 0; i < src->cap; i++)
		if (src->keys[i] && src->vals[i])
			pmap_put(dst, src->keys[i], src->vals[i]);
}

static void first_writers_block(Dcd *c, const Block *b, PtrMap *seen);

static void first_writers_stmt(Dcd *c, const Stmt *s, PtrMap *seen)
{
	switch (s->kind) {
	case ST_ASSIGN: case ST_EVAL: {
		Expr *e = s->value;
		Function *f = callee_of(c, e);
		if (!f)
			return;
		bool *firsts = arena_alloc(c->a, (size_t)(e->nargs + 1) * sizeof *firsts);
		for (int k = 0; k < e->nargs && k < f->nparams; k++) {
			bool amb = false;
			Var *r = f->params[k].dir == DIR_OUT ? expr_root(c, e->args[k], &amb) : NULL;
			if (r && !pmap_get(seen, r))
				firsts[k] = true;
		}
		pmap_put(&c->first, e, firsts);
		for (int k = 0; k < e->nargs && k < f->nparams; k++) {
			bool amb = false;
			Var *r = f->params[k].dir != DIR_IN ? expr_root(c, e->args[k], &amb) : NULL;
			if (r)
				pmap_put(seen, r, r);
		}
		return;
	}
	case ST_FOR: case ST_WHILE: case ST_IF: {
		/* an opaque writer unit: its branches see a copy */
		PtrMap inner = { 0 };
		copy_set(&inner, seen);
		first_writers_block(c, &s->body, &inner);
		pmap_release(&inner);
		if (s->kind == ST_IF) {
			PtrMap other = { 0 };
			copy_set(&other, seen);
			first_writers_block(c, &s->orelse, &other);
			pmap_release(&other);
		}
		written_roots_block(c, &s->body, seen);
		written_roots_block(c, &s->orelse, seen);
		return;
	}
	case ST_SCOPE:
		first_writers_block(c, &s->body, seen);
		return;
	default:
		return;
	}
}

static void first_writers_block(Dcd *c, const Block *b, PtrMap *seen)
{
	for (int i = 0; i < b->n; i++)
		first_writers_stmt(c, b->stmts[i], seen);
}

/* ------------------------------------------------------------ phase 3 */

static bool is_tensor_typed(const Expr *e)
{
	const Type *t = ir_expr_type((Expr *)e);
	return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR || t->kind == TY_TUPLE);
}

static Expr *dict_get(const Expr *d, const char *key)
{
	if (!d)
		return NULL;
	for (int i = 0; i < d->nkw; i++)
		if (strcmp(d->kw[i].name, key) == 0)
			return d->kw[i].value;
	return NULL;
}

static Expr *symbol(Dcd *c, const char *adir)
{
	Expr *e = ir_expr_new(c->a, EX_SYMBOL, (SrcPos){ 0, 0 });
	e->str = intern_cstr(c->a, adir);
	return e;
}

static Expr *derive_call(Dcd *c, Expr *e)
{
	Function *f = callee_of(c, e);
	if (!f)
		return e;
	if (e->kind == EX_FN_CALL ? e->nargs != f->nparams : e->nargs > f->nparams)
		return e;
	if (dict_get(e->attrs, "arg_directions"))
		return e;
	bool *firsts = pmap_get(&c->first, e);
	Expr *dirs = ir_expr_new(c->a, EX_TUPLE, e->pos);
	dirs->nargs = e->nargs;
	dirs->args = arena_alloc(c->a, (size_t)(e->nargs + 1) * sizeof *dirs->args);
	for (int k = 0; k < e->nargs; k++) {
		const char *d;
		Expr *a = e->args[k];
		if (!is_tensor_typed(a)) {
			d = "pl.adir.scalar";
		} else if (param_dir(f, k) == DIR_IN) {
			d = "pl.adir.input";
		} else if (param_dir(f, k) == DIR_INOUT) {
			d = "pl.adir.inout";
		} else {
			bool amb = false;
			Var *r = expr_root(c, a, &amb);
			int p = r ? param_index(c->fn, r) : -1;
			if (c->seq_depth > 0 || amb || (r && !(firsts && firsts[k])) ||
			    (p >= 0 && c->fn->params[p].dir == DIR_INOUT))
				d = "pl.adir.inout";
			else
				d = "pl.adir.output_existing";
		}
		dirs->args[k] = symbol(c, d);
	}
	Expr *ov = dict_get(e->attrs, "arg_direction_overrides");
	if (ov && ov->kind == EX_TUPLE)
		for (int i = 0; i < ov->nargs; i++)
			if (ov->args[i]->kind == EX_INT && ov->args[i]->ival >= 0 && ov->args[i]->ival < e->nargs)
				dirs->args[ov->args[i]->ival] = symbol(c, "pl.adir.no_dep");
	/* a new call node with arg_directions appended to its attrs */
	Expr *n = ir_expr_copy(c->a, e);
	Expr *attrs = ir_expr_new(c->a, EX_DICT, e->pos);
	int old = e->attrs ? e->attrs->nkw : 0;
	attrs->nkw = old + 1;
	attrs->kw = arena_alloc(c->a, (size_t)(old + 1) * sizeof *attrs->kw);
	for (int i = 0; i < old; i++)
		attrs->kw[i] = e->attrs->kw[i];
	attrs->kw[old].name = intern_cstr(c->a, "arg_directions");
	attrs->kw[old].value = dirs;
	n->attrs = attrs;
	return n;
}

/* Rebuild e with every call inside it given its directions (children first). */
static Expr *derive_expr(Dcd *c, Expr *e)
{
	if (!e || (e->kind != EX_FN_CALL && e->kind != EX_SUBMIT && e->kind != EX_OP_CALL && e->kind != EX_TUPLE))
		return e;
	Expr **args = e->args;
	bool changed = false;
	for (int i = 0; i < e->nargs; i++) {
		Expr *x = derive_expr(c, e->args[i]);
		if (x != e->args[i]) {
			if (!changed) {
				args = arena_alloc(c->a, (size_t)e->nargs * sizeof *args);
				memcpy(args, e->args, (size_t)e->nargs * sizeof *args);
				changed = true;
			}
			args[i] = x;
		}
	}
	Expr *base = e;
	if (changed) {
		base = ir_expr_copy(c->a, e);
		base->args = args;
		/* keep first-writer facts attached to the rebuilt node */
		void *fw = pmap_get(&c->first, e);
		if (fw)
			pmap_put(&c->first, base, fw);
	}
	return derive_call(c, base);
}

static void derive_block(Dcd *c, Block *b)
{
	for (int i = 0; i < b->n; i++) {
		Stmt *s = b->stmts[i];
		s->value = derive_expr(c, s->value);
		for (int j = 0; j < s->nvalues; j++)
			s->values[j] = derive_expr(c, s->values[j]);
		if (ir_stmt_is_simple(s->kind))
			continue;
		bool seq = (s->kind == ST_FOR && s->for_kind != FOR_PARALLEL) || s->kind == ST_WHILE;
		c->seq_depth += seq;
		derive_block(c, &s->body);
		c->seq_depth -= seq;
		derive_block(c, &s->orelse);
	}
}

int dcd_run_program(Program *p, Diag *d)
{
	(void)d;
	Dcd c = { 0 };
	c.prog = p;
	c.a = p->arena;
	materialize_wrappers(&c);
	for (int i = 0; i < p->nfuncs; i++) {
		Function *f = p->funcs[i];
		c.fn = f;
		pmap_release(&c.roots);
		pmap_release(&c.first);
		for (int k = 0; k < f->nparams; k++)
			new_root(&c, f->params[k].var, f->params[k].var, false);
		roots_block(&c, &f->body);
		PtrMap seen = { 0 };
		first_writers_block(&c, &f->body, &seen);
		pmap_release(&seen);
		c.seq_depth = 0;
		derive_block(&c, &f->body);
	}
	pmap_release(&c.roots);
	pmap_release(&c.first);
	return 0;
}
