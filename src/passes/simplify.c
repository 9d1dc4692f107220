/* simplify.c - the reference's Simplify pass (simplify_pass.cpp).
 *
 * Per function, one walk with the arithmetic analyzer (arith.h):
 *   - every variable leaf and every arithmetic node is simplified (after a
 *     variable's remap, below); calls keep their shape but their arguments
 *     and result types are simplified; the types of assignment targets,
 *     iter args and loop results are rebuilt with simplified shapes and
 *     views (in place: a Var whose type changes keeps its identity);
 *   - a scalar assigned once is registered with the analyzer: a constant at
 *     the function's top level (outside loop, branch, while and spmd
 *     bodies) by value, so it is substituted downstream; anything else only
 *     by its constant-integer bound.  Bindings made in a region are dropped
 *     when it ends;
 *   - a for loop with constant bounds binds its variable to the range
 *     while its body is visited; an if's branches see the condition (and
 *     its negation) as a constraint;
 *   - Fold A: an if whose condition the analyzer proves true or false is
 *     replaced by the kept branch, its phis (return vars) substituted by the
 *     values the branch yields;
 *   - Fold B: a plain sequential loop (no attrs) with a step >= 1 and a
 *     provable trip count of 0 becomes assignments of its results from the
 *     init values; of 1, a copy of its body with fresh variables, the loop
 *     variable replaced by the start and iter args by their inits, simplified
 *     again and lifted like Fold A;
 * then a conservative dead-code elimination of scalar assignments without
 * calls, of if phis nobody reads, and once more of the scalars that fed
 * them.
 *
 * The variable remap (the reference's var_remap_) is a hash map with an
 * undo log, so the snapshots the reference takes around loops and branches
 * cost only what changed inside them.  Errors the analyzer raises (the
 * reference's TypeErrors, e.g. a float comparison constraint or a bool
 * constant) are reported at the statement being simplified.
 *
 * Requires nothing, produces nothing (kSimplifyProperties is empty).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arith.h"
#include "ptoopt/ir_walk.h"
#include "ptoopt/passes.h"

typedef struct RemapUndo {
	Var *key;
	Expr *prev;
} RemapUndo;

typedef struct Change {
	Var *key;
	Expr *val;
} Change;

typedef struct Simp {
	Program *p;
	Arena *a;
	Diag *d;
	Analyzer *an;
	Function *fn;
	VarTab remap; /* Var -> Expr */
	RemapUndo *log;
	size_t nlog, clog;
	VarTab seen, multi;
	VarTab live, defs, uses; /* the dead-code elimination's (Dce) */
	Var **binds;
	size_t nbinds, cbinds;
	int depth;
	bool failed;
	SrcPos at; /* the statement being simplified */
} Simp;

#define GROW(arr, n, cap)                                                         \
	do {                                                                      \
		if ((n) == (cap)) {                                               \
			(cap) = (cap) ? (cap) * 2 : 64;                           \
			(arr) = xrealloc((arr), (cap) * sizeof *(arr));           \
		}                                                                 \
	} while (0)

static void check(Simp *s)
{
	const char *e = arith_error(s->an);
	if (e && !s->failed) {
		s->failed = true;
		diag_error(s->d, s->at.line, s->at.col, "simplify: %s", e);
	}
}

/* ------------------------------------------------------------ the remap */

static void remap_set(Simp *s, Var *k, Expr *v)
{
	GROW(s->log, s->nlog, s->clog);
	s->log[s->nlog++] = (RemapUndo){ k, vtab_get(&s->remap, k) };
	vtab_put(&s->remap, k, v);
}

static void remap_restore(Simp *s, size_t mark)
{
	while (s->nlog > mark) {
		RemapUndo u = s->log[--s->nlog];
		vtab_put(&s->remap, u.key, u.prev);
	}
}

/* the changes made since mark, with their final values */
static Change *remap_changes(Simp *s, size_t mark, size_t *n)
{
	*n = s->nlog - mark;
	if (!*n)
		return NULL;
	Change *c = xmalloc(*n * sizeof *c);
	for (size_t i = 0; i < *n; i++) {
		Var *k = s->log[mark + i].key;
		c[i] = (Change){ k, vtab_get(&s->remap, k) };
	}
	return c;
}

static void remap_apply(Simp *s, const Change *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		remap_set(s, c[i].key, c[i].val);
}

/* ------------------------------------------------------------ bindings */

static void log_bind(Simp *s, Var *v)
{
	GROW(s->binds, s->nbinds, s->cbinds);
	s->binds[s->nbinds++] = v;
}

static void unbind_since(Simp *s, size_t mark)
{
	while (s->nbinds > mark)
		arith_unbind(s->an, s->binds[--s->nbinds]);
}

/* ------------------------------------------------------------ expressions */

static Expr *vexpr(Simp *s, Expr *e);
static Type *simp_type(Simp *s, Type *t);

/* Leaves the analyzer returns as they are: literals, and Vars that are
 * not scalars (it binds and rewrites scalars only). */
static bool arith_leaf(const Expr *e)
{
	switch (e->kind) {
	case EX_INT: case EX_FLOAT: case EX_BOOL: case EX_STR: case EX_SYMBOL:
		return true;
	case EX_VAR:
		return e->var->type && e->var->type->kind != TY_SCALAR;
	default:
		return false;
	}
}

static Expr *simp_expr(Simp *s, Expr *e)
{
	if (!e)
		return e;
	Expr *v = vexpr(s, e);
	return arith_leaf(v) ? v : arith_simplify(s->an, v);
}

static Expr **visit_list(Simp *s, Expr **xs, int n, bool *changed)
{
	Expr **out = xs;
	for (int i = 0; i < n; i++) {
		Expr *x = vexpr(s, xs[i]);
		if (x != xs[i]) {
			if (out == xs) {
				out = arena_alloc(s->a, (size_t)n * sizeof *out);
				memcpy(out, xs, (size_t)n * sizeof *out);
			}
			out[i] = x;
			*changed = true;
		}
	}
	return out;
}

static bool is_submit_operand(const char *k)
{
	return !strcmp(k, "deps") || !strcmp(k, "core_num") || !strcmp(k, "predicate");
}

/* MapAttrExprs: a call's expression-valued attrs go through the visit; an
 * element of a list of variables stays a variable. */
static Expr *visit_attrs(Simp *s, Expr *d)
{
	if (!d || d->kind != EX_DICT)
		return d;
	Kwarg *kw = d->kw;
	for (int i = 0; i < d->nkw; i++) {
		Expr *v = d->kw[i].value, *nv = v;
		if (v->kind == EX_TUPLE) {
			Expr **elems = v->args;
			for (int j = 0; j < v->nargs; j++) {
				if (v->args[j]->kind != EX_VAR)
					continue;
				Expr *x = vexpr(s, v->args[j]);
				if (x == v->args[j] || x->kind != EX_VAR)
					continue;
				if (elems == v->args) {
					elems = arena_alloc(s->a, (size_t)v->nargs * sizeof *elems);
					memcpy(elems, v->args, (size_t)v->nargs * sizeof *elems);
				}
				elems[j] = x;
			}
			if (elems != v->args) {
				nv = ir_expr_copy(s->a, v);
				nv->args = elems;
			}
		} else if (v->kind == EX_VAR || v->kind == EX_BINARY || v->kind == EX_UNARY || v->kind == EX_CAST) {
			nv = vexpr(s, v);
		}
		if (nv != v) {
			if (kw == d->kw) {
				kw = arena_alloc(s->a, (size_t)d->nkw * sizeof *kw);
				memcpy(kw, d->kw, (size_t)d->nkw * sizeof *kw);
			}
			kw[i].value = nv;
		}
	}
	if (kw == d->kw)
		return d;
	Expr *n = ir_expr_copy(s->a, d);
	n->kw = kw;
	return n;
}

/* The layout symbol of a tensor type's view, ND when it has none. */
static const char *tensor_layout(const Type *t)
{
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			if (!strcmp(t->view->kw[i].name, "layout") && t->view->kw[i].value->kind == EX_SYMBOL)
				return t->view->kw[i].value->str;
	return "pl.TensorLayout.ND";
}

static bool tensor_like(const Type *t) { return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR); }

/* SimplifyTensorView: a layout-only view to the layout its source already
 * has is its source */
static Expr *fold_tensor_view(Expr *call)
{
	if (call->kind != EX_OP_CALL || strcmp(call->str, "tensor.view") != 0 || call->nargs != 1)
		return call;
	Expr *src = call->args[0];
	Type *st = ir_expr_type(src), *ct = call->type;
	if (!tensor_like(st) || !tensor_like(ct))
		return call;
	return strcmp(tensor_layout(st), tensor_layout(ct)) == 0 ? src : call;
}

/* IRMutator's leaf-wise visit with SimplifyMutator's overrides */
static Expr *vexpr(Simp *s, Expr *e)
{
	switch (e->kind) {
	case EX_VAR: {
		Expr *r = vtab_get(&s->remap, e->var);
		if (!r)
			r = e;
		return arith_leaf(r) ? r : arith_simplify(s->an, r);
	}
	case EX_BINARY: {
		Expr *l = vexpr(s, e->lhs), *r = vexpr(s, e->rhs);
		Expr *n = e;
		if (l != e->lhs || r != e->rhs) {
			n = ir_expr_copy(s->a, e);
			n->lhs = l;
			n->rhs = r;
		}
		return arith_simplify(s->an, n);
	}
	case EX_UNARY: case EX_CAST: {
		Expr *l = vexpr(s, e->lhs);
		Expr *n = e;
		if (l != e->lhs) {
			n = ir_expr_copy(s->a, e);
			n->lhs = l;
		}
		return arith_simplify(s->an, n);
	}
	case EX_TUPLE: {
		bool ch = false;
		Expr **args = visit_list(s, e->args, e->nargs, &ch);
		if (!ch)
			return e;
		Expr *n = ir_expr_copy(s->a, e);
		n->args = args;
		return n;
	}
	case EX_GETITEM: {
		Expr *l = vexpr(s, e->lhs);
		if (l == e->lhs)
			return e;
		Expr *n = ir_expr_copy(s->a, e);
		n->lhs = l;
		return n;
	}
	case EX_OP_CALL: case EX_FN_CALL: case EX_SUBMIT: {
		bool ch = false;
		Expr **args = visit_list(s, e->args, e->nargs, &ch);
		Kwarg *kw = e->kw;
		if (e->kind == EX_SUBMIT) {
			for (int i = 0; i < e->nkw; i++) {
				if (!is_submit_operand(e->kw[i].name))
					continue;
				Expr *v = vexpr(s, e->kw[i].value);
				if (v == e->kw[i].value)
					continue;
				if (kw == e->kw) {
					kw = arena_alloc(s->a, (size_t)e->nkw * sizeof *kw);
					memcpy(kw, e->kw, (size_t)e->nkw * sizeof *kw);
				}
				kw[i].value = v;
				ch = true;
			}
		}
		Expr *attrs = visit_attrs(s, e->attrs);
		if (attrs != e->attrs)
			ch = true;
		Expr *n = e;
		if (ch) {
			n = ir_expr_copy(s->a, e);
			n->args = args;
			n->kw = kw;
			n->attrs = attrs;
		}
		Expr *f = fold_tensor_view(n);
		if (f != n)
			return f;
		Type *t = n->type ? simp_type(s, n->type) : NULL;
		if (t == n->type)
			return n;
		if (n == e)
			n = ir_expr_copy(s->a, e);
		n->type = t;
		return n;
	}
	default:
		return e;
	}
}

/* ------------------------------------------------------------ types */

static Expr **simp_list(Simp *s, Expr **xs, int n, bool *changed)
{
	Expr **out = xs;
	for (int i = 0; i < n; i++) {
		Expr *x = simp_expr(s, xs[i]);
		if (x != xs[i]) {
			if (out == xs) {
				out = arena_alloc(s->a, (size_t)(n ? n : 1) * sizeof *out);
				memcpy(out, xs, (size_t)n * sizeof *out);
			}
			out[i] = x;
			*changed = true;
		}
	}
	return out;
}

static ViewSpec *simp_view(Simp *s, ViewSpec *v)
{
	if (!v)
		return v;
	ViewSpec *out = v;
	for (int i = 0; i < v->nkw; i++) {
		const char *k = v->kw[i].name;
		Expr *val = v->kw[i].value;
		Expr *nv = val;
		if (!strcmp(k, "stride") || !strcmp(k, "valid_shape")) {
			if (val && val->kind == EX_TUPLE) {
				bool ch = false;
				Expr **args = simp_list(s, val->args, val->nargs, &ch);
				if (ch) {
					nv = ir_expr_copy(s->a, val);
					nv->args = args;
				}
			}
		} else if (!strcmp(k, "start_offset")) {
			if (val)
				nv = simp_expr(s, val);
		}
		if (nv != val) {
			if (out == v) {
				out = arena_alloc(s->a, sizeof *out);
				out->nkw = v->nkw;
				out->kw = arena_alloc(s->a, (size_t)v->nkw * sizeof *out->kw);
				memcpy(out->kw, v->kw, (size_t)v->nkw * sizeof *out->kw);
			}
			out->kw[i].value = nv;
		}
	}
	return out;
}

/* SimplifyType: shapes and views of tensors and tiles, tuples element-wise */
static Type *simp_type(Simp *s, Type *t)
{
	if (!t)
		return t;
	if (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR || t->kind == TY_TILE) {
		bool ch = false;
		Expr **shape = simp_list(s, t->shape, t->ndim, &ch);
		ViewSpec *view = simp_view(s, t->view);
		if (!ch && view == t->view)
			return t;
		Type *n = ir_type_new(s->a, t->kind);
		*n = *t;
		n->mark = 0;
		n->text_at = 0;
		n->shape = shape;
		n->view = view;
		return n;
	}
	if (t->kind == TY_TUPLE) {
		Type **elems = t->elems;
		for (int i = 0; i < t->nelems; i++) {
			Type *e = simp_type(s, t->elems[i]);
			if (e != t->elems[i]) {
				if (elems == t->elems) {
					elems = arena_alloc(s->a, (size_t)t->nelems * sizeof *elems);
					memcpy(elems, t->elems, (size_t)t->nelems * sizeof *elems);
				}
				elems[i] = e;
			}
		}
		if (elems == t->elems)
			return t;
		Type *n = ir_type_new(s->a, TY_TUPLE);
		*n = *t;
		n->mark = 0;
		n->text_at = 0;
		n->elems = elems;
		return n;
	}
	return t;
}

static void rebuild_var(Simp *s, Var *v) { v->type = simp_type(s, v->type); }

static bool is_scalar_var(const Var *v) { return v->type && v->type->kind == TY_SCALAR; }

static bool is_const_scalar(const Expr *e)
{
	return e->kind == EX_INT || e->kind == EX_FLOAT || e->kind == EX_BOOL;
}

/* ------------------------------------------------------------ statements */

typedef struct Out {
	Stmt **items;
	size_t n, cap;
} Out;

static void out_push(Out *o, Stmt *st)
{
	GROW(o->items, o->n, o->cap);
	o->items[o->n++] = st;
}

static void visit_stmt(Simp *s, Stmt *st, Out *o);

static Block finish_block(Simp *s, Out *o)
{
	Block b = { NULL, (int)o->n };
	b.stmts = arena_alloc(s->a, (o->n ? o->n : 1) * sizeof *b.stmts);
	if (o->n)
		memcpy(b.stmts, o->items, o->n * sizeof *b.stmts);
	free(o->items);
	return b;
}

static Block visit_block(Simp *s, const Block *b)
{
	Out o = { 0 };
	for (int i = 0; i < b->n && !s->failed; i++)
		visit_stmt(s, b->stmts[i], &o);
	return finish_block(s, &o);
}

static Block visit_scoped(Simp *s, const Block *b)
{
	size_t mark = s->nbinds;
	s->depth++;
	Block r = visit_block(s, b);
	s->depth--;
	unbind_since(s, mark);
	return r;
}

/* LiftBodyToReturnVars: the kept block into o, its trailing yield's values
 * remapped onto rets */
static void lift(Simp *s, Block *kept, Var **rets, int nrets, Out *o)
{
	int n = kept->n;
	if (nrets > 0) {
		Stmt *y = n ? kept->stmts[n - 1] : NULL;
		if (!y || y->kind != ST_YIELD || y->nvalues != nrets) {
			if (!s->failed) {
				s->failed = true;
				diag_error(s->d, s->at.line, s->at.col,
					   "simplify: internal error: a control-flow body with results must end with pl.yield_");
			}
			return;
		}
		for (int i = 0; i < nrets; i++)
			remap_set(s, rets[i], y->values[i]);
		n--;
	}
	for (int i = 0; i < n; i++)
		out_push(o, kept->stmts[i]);
}

static void visit_assign(Simp *s, Stmt *st)
{
	Expr *v = simp_expr(s, st->value);
	rebuild_var(s, st->var);
	check(s);
	if (s->failed)
		return;
	if (is_scalar_var(st->var) && !vtab_get(&s->multi, st->var)) {
		if (is_const_scalar(v) && s->depth == 0) {
			arith_bind_value(s->an, st->var, v);
			log_bind(s, st->var);
		} else {
			ArithBound rhs = arith_bound(s->an, v);
			ArithBound def = arith_bound(s->an, ir_var_ref(s->a, st->var));
			ArithBound b = { rhs.lo > def.lo ? rhs.lo : def.lo, rhs.hi < def.hi ? rhs.hi : def.hi };
			if (b.lo <= b.hi) {
				arith_update_bound(s->an, st->var, b);
				log_bind(s, st->var);
			}
		}
		check(s);
	}
	st->value = v;
}

/* A loop's initial values simplify; its iter args stay the loop's own. */
static void fold_inits(Simp *s, Stmt *st)
{
	for (int i = 0; i < st->niter; i++) {
		Var *ia = st->iter_args[i];
		rebuild_var(s, ia);
		Expr *init = simp_expr(s, st->inits[i]);
		st->inits[i] = init;
		ia->init = init;
	}
	check(s);
}

static void visit_for(Simp *s, Stmt *st, Out *o)
{
	Expr *start = simp_expr(s, st->start), *stop = simp_expr(s, st->stop), *step = simp_expr(s, st->step);
	fold_inits(s, st);
	if (s->failed)
		return;
	bool pure = (!st->attrs || st->attrs->nkw == 0) && st->for_kind == FOR_RANGE;
	if (pure && arith_can_prove_ge(s->an, step, 1)) {
		int trips = -1;
		if (arith_can_prove(s->an, arith_make_binary(s->an, OP_LE, stop, start))) {
			trips = 0;
		} else {
			Expr *c = arith_make_binary(s->an, OP_AND, arith_make_binary(s->an, OP_LT, start, stop),
						    arith_make_binary(s->an, OP_LE, stop,
								      arith_make_binary(s->an, OP_ADD, start, step)));
			if (arith_can_prove(s->an, c))
				trips = 1;
		}
		check(s);
		if (s->failed)
			return;
		if (trips == 0) {
			for (int i = 0; i < st->nrets; i++) {
				rebuild_var(s, st->rets[i]);
				Stmt *as = ir_stmt_new(s->a, ST_ASSIGN, st->pos);
				as->var = st->rets[i];
				as->value = st->inits[i];
				out_push(o, as);
			}
			return;
		}
		if (trips == 1) {
			PtrMap vars = { 0 }, exprs = { 0 };
			if (st->var)
				pmap_put(&exprs, st->var, start);
			for (int i = 0; i < st->niter; i++)
				pmap_put(&exprs, st->iter_args[i], st->inits[i]);
			Block cloned = ir_block_clone(s->p, &st->body, &vars, &exprs, NULL, NULL);
			pmap_release(&vars);
			pmap_release(&exprs);
			size_t mark = s->nlog;
			Block body = visit_block(s, &cloned);
			remap_restore(s, mark);
			if (s->failed)
				return;
			lift(s, &body, st->rets, st->nrets, o);
			return;
		}
	}
	bool bound = start->kind == EX_INT && stop->kind == EX_INT && stop->ival > start->ival && st->var;
	if (bound)
		arith_bind_range(s->an, st->var, start->ival, stop->ival);
	check(s);
	size_t mark = s->nlog;
	Block body = visit_scoped(s, &st->body);
	if (bound)
		arith_unbind(s->an, st->var);
	remap_restore(s, mark);
	s->at = st->pos;
	if (s->failed)
		return;
	for (int i = 0; i < st->nrets; i++)
		rebuild_var(s, st->rets[i]);
	check(s);
	st->start = start;
	st->stop = stop;
	st->step = step;
	st->body = body;
	out_push(o, st);
}

static void visit_if(Simp *s, Stmt *st, Out *o)
{
	Expr *cond = simp_expr(s, st->value);
	check(s);
	if (s->failed)
		return;
	size_t rmark = s->nlog, bmark = s->nbinds;
	int h = arith_enter_constraint(s->an, cond);
	check(s);
	s->depth++;
	Block then_b = s->failed ? st->body : visit_block(s, &st->body);
	s->depth--;
	arith_exit_constraint(s->an, h);
	size_t nthen;
	Change *then_ch = remap_changes(s, rmark, &nthen);
	remap_restore(s, rmark);
	unbind_since(s, bmark);
	Block else_b = st->orelse;
	bool has_else = st->has_else;
	Expr *notc = arith_make_unary(s->an, UOP_NOT, cond);
	s->at = st->pos;
	if (has_else && !s->failed) {
		h = arith_enter_constraint(s->an, notc);
		check(s);
		s->depth++;
		if (!s->failed)
			else_b = visit_block(s, &st->orelse);
		s->depth--;
		arith_exit_constraint(s->an, h);
	}
	size_t nelse;
	Change *else_ch = remap_changes(s, rmark, &nelse);
	remap_restore(s, rmark);
	unbind_since(s, bmark);
	if (s->failed) {
		free(then_ch);
		free(else_ch);
		return;
	}
	s->at = st->pos;
	bool always_true = arith_can_prove(s->an, cond);
	bool always_false = !always_true && arith_can_prove(s->an, notc);
	check(s);
	if (!s->failed && (always_true || always_false)) {
		if (always_true) {
			remap_apply(s, then_ch, nthen);
			lift(s, &then_b, st->rets, st->nrets, o);
		} else if (has_else) {
			remap_apply(s, else_ch, nelse);
			lift(s, &else_b, st->rets, st->nrets, o);
		} else if (st->nrets > 0) {
			s->failed = true;
			diag_error(s->d, st->pos.line, st->pos.col,
				   "simplify: internal error: an if without else must have no return vars");
		}
		free(then_ch);
		free(else_ch);
		return;
	}
	free(then_ch);
	free(else_ch);
	st->value = cond;
	st->body = then_b;
	if (has_else)
		st->orelse = else_b;
	out_push(o, st);
}

/* The reference's Simplify does not rebuild a while loop's iter args: a
 * use of one goes through its generic mutator, which makes a fresh iter arg
 * when the initial value (or type) simplifies, so the body no longer names
 * the loop's own iter arg and the reference's verifier rejects its result
 * ("used before definition").  That is a pass bug, not a user error, so a
 * while loop is treated as a for loop is: its initial values simplify and
 * its iter args stay the loop's own. */
static void visit_while(Simp *s, Stmt *st, Out *o)
{
	fold_inits(s, st);
	if (s->failed)
		return;
	st->value = simp_expr(s, st->value);
	check(s);
	if (s->failed)
		return;
	st->body = visit_scoped(s, &st->body);
	out_push(o, st);
}

static void visit_stmt(Simp *s, Stmt *st, Out *o)
{
	s->at = st->pos;
	switch (st->kind) {
	case ST_ASSIGN:
		visit_assign(s, st);
		out_push(o, st);
		return;
	case ST_EVAL:
		st->value = simp_expr(s, st->value);
		check(s);
		out_push(o, st);
		return;
	case ST_RETURN: case ST_YIELD:
		if (st->nvalues) {
			Expr **vals = arena_alloc(s->a, (size_t)st->nvalues * sizeof *vals);
			for (int i = 0; i < st->nvalues; i++)
				vals[i] = simp_expr(s, st->values[i]);
			st->values = vals;
		}
		check(s);
		out_push(o, st);
		return;
	case ST_FOR:
		visit_for(s, st, o);
		return;
	case ST_IF:
		visit_if(s, st, o);
		return;
	case ST_WHILE:
		visit_while(s, st, o);
		return;
	case ST_SCOPE:
		if (st->scope->kind == SC_SPMD) {
			if (st->scope->core_num)
				st->scope->core_num = simp_expr(s, st->scope->core_num);
			check(s);
			if (s->failed)
				return;
			st->body = visit_scoped(s, &st->body);
		} else {
			st->body = visit_block(s, &st->body);
		}
		out_push(o, st);
		return;
	default:
		out_push(o, st);
		return;
	}
}

/* ------------------------------------------------------------ dead code */

typedef struct Dce {
	Simp *s;
	VarTab *live;  /* Var -> non-NULL */
	VarTab *defs;  /* Var -> first assign index + 1 */
	int *next;     /* next assign defining the same Var, index + 1 */
	Stmt **assigns;
	size_t nassigns, cassigns;
	Var **work;
	size_t nwork, cwork;
} Dce;

static bool has_call(const Expr *e)
{
	if (!e || e->kind == EX_VAR)
		return false;
	if (e->kind == EX_OP_CALL || e->kind == EX_FN_CALL || e->kind == EX_SUBMIT)
		return true;
	if (has_call(e->lhs) || has_call(e->rhs))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (has_call(e->args[i]))
			return true;
	for (int i = 0; i < e->nkw; i++)
		if (has_call(e->kw[i].value))
			return true;
	return has_call(e->attrs);
}

static bool is_task_id_element(const Stmt *st)
{
	const Expr *v = st->value;
	if (v->kind != EX_GETITEM || v->lhs->kind != EX_VAR)
		return false;
	const Type *t = v->lhs->var->type;
	if (!t || t->kind != TY_TUPLE || t->nelems == 0)
		return false;
	if (v->ival != t->nelems - 1)
		return false;
	const Type *last = t->elems[t->nelems - 1];
	return last && last->kind == TY_SCALAR && last->dtype == DT_TASK_ID;
}

static bool removable(const Stmt *st)
{
	return st->kind == ST_ASSIGN && is_scalar_var(st->var) && !is_task_id_element(st) && !has_call(st->value);
}

static void mark_live(void *ctx, Var *v)
{
	Dce *d = ctx;
	if (vtab_get(d->live, v))
		return;
	vtab_put(d->live, v, (void *)1);
	GROW(d->work, d->nwork, d->cwork);
	d->work[d->nwork++] = v;
}

static void type_vars(const Type *t, IrVarFn fn, void *ctx)
{
	if (!t)
		return;
	if (t->kind == TY_TUPLE) {
		for (int i = 0; i < t->nelems; i++)
			type_vars(t->elems[i], fn, ctx);
		return;
	}
	if (t->kind != TY_TENSOR && t->kind != TY_DIST_TENSOR && t->kind != TY_TILE)
		return;
	if (t->memref && t->memref->index)
		ir_expr_vars(t->memref->index, fn, ctx);
	for (int i = 0; i < t->ndim; i++)
		ir_expr_vars(t->shape[i], fn, ctx);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++) {
			const char *k = t->view->kw[i].name;
			if (!strcmp(k, "stride") || !strcmp(k, "valid_shape") || !strcmp(k, "start_offset"))
				ir_expr_vars(t->view->kw[i].value, fn, ctx);
		}
}

/* FindLiveRoots + MarkBinderTypeRefsLive + CollectAllAssignStmts */
static void dce_roots(Dce *d, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		Stmt *st = b->stmts[i];
		switch (st->kind) {
		case ST_ASSIGN:
			GROW(d->assigns, d->nassigns, d->cassigns);
			d->assigns[d->nassigns++] = st;
			/* fall through */
		case ST_EVAL: case ST_RETURN: case ST_YIELD:
			if (!removable(st)) {
				if (st->var)
					mark_live(d, st->var);
				ir_expr_vars(st->value, mark_live, d);
				for (int j = 0; j < st->nvalues; j++)
					ir_expr_vars(st->values[j], mark_live, d);
			}
			break;
		case ST_FOR: case ST_WHILE:
			if (st->kind == ST_FOR) {
				ir_expr_vars(st->start, mark_live, d);
				ir_expr_vars(st->stop, mark_live, d);
				ir_expr_vars(st->step, mark_live, d);
			} else {
				ir_expr_vars(st->value, mark_live, d);
			}
			for (int j = 0; j < st->niter; j++) {
				ir_expr_vars(st->inits[j], mark_live, d);
				type_vars(st->iter_args[j]->type, mark_live, d);
			}
			for (int j = 0; j < st->nrets; j++)
				type_vars(st->rets[j]->type, mark_live, d);
			dce_roots(d, &st->body);
			break;
		case ST_IF:
			ir_expr_vars(st->value, mark_live, d);
			for (int j = 0; j < st->nrets; j++)
				type_vars(st->rets[j]->type, mark_live, d);
			dce_roots(d, &st->body);
			if (st->has_else)
				dce_roots(d, &st->orelse);
			break;
		case ST_SCOPE:
			ir_scope_vars(st->scope, mark_live, d);
			dce_roots(d, &st->body);
			break;
		default:
			break;
		}
	}
}

static bool dce_filter(Dce *d, Block *b)
{
	bool changed = false;
	int k = 0;
	for (int i = 0; i < b->n; i++) {
		Stmt *st = b->stmts[i];
		if (st->kind == ST_ASSIGN && removable(st) && !vtab_get(d->live, st->var)) {
			changed = true;
			continue;
		}
		if (!ir_stmt_is_simple(st->kind)) {
			if (dce_filter(d, &st->body))
				changed = true;
			if (st->kind == ST_IF && st->has_else && dce_filter(d, &st->orelse))
				changed = true;
		}
		b->stmts[k++] = st;
	}
	b->n = k;
	return changed;
}

/* What the eliminations can find in b: a removable assignment (*rem), an
 * if with return vars (*phis).  Statements only, no expression walk. */
static void dce_scan(const Block *b, bool *rem, bool *phis)
{
	for (int i = 0; i < b->n && !(*rem && *phis); i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_ASSIGN && !*rem && removable(st))
			*rem = true;
		if (ir_stmt_is_simple(st->kind))
			continue;
		if (st->kind == ST_IF && st->nrets)
			*phis = true;
		dce_scan(&st->body, rem, phis);
		if (st->kind == ST_IF && st->has_else)
			dce_scan(&st->orelse, rem, phis);
	}
}

static void dce_scalars(Simp *s, Block *body)
{
	Dce d = { .s = s, .live = &s->live, .defs = &s->defs };
	dce_roots(&d, body);
	d.next = d.nassigns ? xmalloc(d.nassigns * sizeof *d.next) : NULL;
	for (size_t i = 0; i < d.nassigns; i++) {
		Var *v = d.assigns[i]->var;
		d.next[i] = (int)(uintptr_t)vtab_get(d.defs, v);
		vtab_put(d.defs, v, (void *)(uintptr_t)(i + 1));
	}
	while (d.nwork) {
		Var *v = d.work[--d.nwork];
		for (int j = (int)(uintptr_t)vtab_get(d.defs, v); j; j = d.next[j - 1]) {
			Stmt *as = d.assigns[j - 1];
			ir_expr_vars(as->value, mark_live, &d);
			type_vars(as->var->type, mark_live, &d);
		}
	}
	dce_filter(&d, body);
	vtab_clear(d.live);
	vtab_clear(d.defs);
	free(d.next);
	free(d.assigns);
	free(d.work);
}

/* every use of a Var (not definitions) in a block */
static void uses_block(const Block *b, IrVarFn fn, void *ctx);

static void uses_stmt(const Stmt *st, IrVarFn fn, void *ctx)
{
	ir_expr_vars(st->value, fn, ctx);
	for (int i = 0; i < st->nvalues; i++)
		ir_expr_vars(st->values[i], fn, ctx);
	if (ir_stmt_is_simple(st->kind))
		return;
	ir_expr_vars(st->start, fn, ctx);
	ir_expr_vars(st->stop, fn, ctx);
	ir_expr_vars(st->step, fn, ctx);
	for (int i = 0; i < st->niter; i++)
		ir_expr_vars(st->inits[i], fn, ctx);
	if (st->kind == ST_SCOPE)
		ir_scope_vars(st->scope, fn, ctx);
	uses_block(&st->body, fn, ctx);
	if (st->kind == ST_IF && st->has_else)
		uses_block(&st->orelse, fn, ctx);
}

static void uses_block(const Block *b, IrVarFn fn, void *ctx)
{
	for (int i = 0; i < b->n; i++)
		uses_stmt(b->stmts[i], fn, ctx);
}

static void mark_use(void *ctx, Var *v) { vtab_put(ctx, v, (void *)1); }

static void filter_yield(Simp *s, Block *b, const int *kept, int nkept)
{
	if (!b->n)
		return;
	Stmt *y = b->stmts[b->n - 1];
	if (y->kind != ST_YIELD)
		return;
	if (!nkept) {
		b->n--;
		return;
	}
	Stmt *ny = ir_stmt_copy(s->a, y);
	ny->values = arena_alloc(s->a, (size_t)nkept * sizeof *ny->values);
	for (int i = 0; i < nkept; i++)
		ny->values[i] = kept[i] < y->nvalues ? y->values[kept[i]] : y->values[0];
	ny->nvalues = nkept;
	b->stmts[b->n - 1] = ny;
}

static bool prune_phis(Simp *s, Block *b, const VarTab *uses)
{
	bool changed = false;
	for (int i = 0; i < b->n; i++) {
		Stmt *st = b->stmts[i];
		if (ir_stmt_is_simple(st->kind))
			continue;
		if (prune_phis(s, &st->body, uses))
			changed = true;
		if (st->kind != ST_IF)
			continue;
		if (st->has_else && prune_phis(s, &st->orelse, uses))
			changed = true;
		int nk = 0;
		int *kept = st->nrets ? xmalloc((size_t)st->nrets * sizeof *kept) : NULL;
		for (int j = 0; j < st->nrets; j++)
			if (vtab_get(uses, st->rets[j]))
				kept[nk++] = j;
		if (nk < st->nrets) {
			filter_yield(s, &st->body, kept, nk);
			if (st->has_else)
				filter_yield(s, &st->orelse, kept, nk);
			Var **rets = arena_alloc(s->a, (size_t)(nk ? nk : 1) * sizeof *rets);
			for (int j = 0; j < nk; j++)
				rets[j] = st->rets[kept[j]];
			st->rets = rets;
			st->nrets = nk;
			changed = true;
		}
		free(kept);
	}
	return changed;
}

/* Whether a phi was dropped. */
static bool dce_phis(Simp *s, Block *body)
{
	bool any = false;
	for (;;) {
		uses_block(body, mark_use, &s->uses);
		bool ch = prune_phis(s, body, &s->uses);
		vtab_clear(&s->uses);
		if (!ch)
			return any;
		any = true;
	}
}

/* ------------------------------------------------------------ driver */

static void collect_multi(Simp *s, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		Stmt *st = b->stmts[i];
		if (st->kind == ST_ASSIGN) {
			if (vtab_get(&s->seen, st->var))
				vtab_put(&s->multi, st->var, (void *)1);
			else
				vtab_put(&s->seen, st->var, (void *)1);
		}
		if (!ir_stmt_is_simple(st->kind)) {
			collect_multi(s, &st->body);
			if (st->kind == ST_IF && st->has_else)
				collect_multi(s, &st->orelse);
		}
	}
}

static int simplify_function(Simp *s, Function *f)
{
	s->fn = f;
	s->an = arith_new(s->a);
	vtab_clear(&s->seen);
	vtab_clear(&s->multi);
	vtab_clear(&s->remap);
	s->nlog = 0;
	s->nbinds = 0;
	s->depth = 0;
	collect_multi(s, &f->body);
	Block body = visit_block(s, &f->body);
	arith_free(s->an);
	s->an = NULL;
	if (s->failed)
		return 1;
	/* each step only where it can find something: the first round leaves
	 * only live scalars behind, so the second one only finds more when
	 * phis went */
	bool rem = false, phis = false;
	dce_scan(&body, &rem, &phis);
	if (rem)
		dce_scalars(s, &body);
	if (phis && dce_phis(s, &body) && rem)
		dce_scalars(s, &body);
	f->body = body;
	return 0;
}

int simplify_program(Program *p, Diag *d)
{
	Simp *s = xmalloc(sizeof *s);
	memset(s, 0, sizeof *s);
	s->p = p;
	s->a = p->arena;
	s->d = d;
	VarTab *tabs[] = { &s->remap, &s->seen, &s->multi, &s->live, &s->defs, &s->uses };
	for (size_t i = 0; i < sizeof tabs / sizeof *tabs; i++)
		vtab_reserve(tabs[i], p);
	int rc = 0;
	for (int i = 0; i < p->nfuncs && !rc; i++) {
		Function *f = p->funcs[i];
		if (f->abstract || f->inline_body)
			continue;
		rc = simplify_function(s, f);
	}
	for (size_t i = 0; i < sizeof tabs / sizeof *tabs; i++)
		vtab_release(tabs[i]);
	free(s->log);
	free(s->binds);
	free(s);
	return rc;
}
